import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { PrismaClient } from '@xchain/quote-engine-db';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { getAddress, isAddress } from 'viem';
import { DB } from '../db.providers';

export interface ChainInfo {
  name: string;
  chainId: bigint;
  vm: 'evm' | 'svm';
  nativeSymbol: string;
  nativeDecimals: number;
  enabled: boolean;
  gasless: boolean;
  maxGasDrop: bigint;
  depositTarget: string;
  gaslessExecutor?: string;
  feePayer?: string;
  defaultFulfillEtaSecs?: bigint;
}

export interface TokenInfo {
  chain: string;
  address: string;
  symbol: string;
  decimals: number;
  tier: 'stable' | 'major' | 'long_tail';
  permit: boolean;
  priceId?: string;
  isNative: boolean;
}

const EVM_NATIVE = '0x0000000000000000000000000000000000000000';
const SVM_NATIVE = '11111111111111111111111111111111';

/**
 * The registry in memory for the quote hot path, reloaded from the database every few seconds
 * (an operator's change shows within REGISTRY_REFRESH_MS; no quote waits on the database for it).
 */
@Injectable()
export class RegistryCache implements OnModuleInit, OnApplicationShutdown {
  private chains = new Map<string, ChainInfo>();
  private tokens = new Map<string, TokenInfo>();
  private bySymbolIndex = new Map<string, TokenInfo>();
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject('REGISTRY_REFRESH_MS') private readonly refreshMs: number,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload().catch((err: unknown) => this.log.warn({ err: String(err) }, 'registry load failed; will retry'));
    this.timer = setInterval(() => {
      this.reload().catch((err: unknown) => this.log.warn({ err: String(err) }, 'registry reload failed'));
    }, this.refreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async reload(): Promise<void> {
    const [chains, tokens] = await Promise.all([this.db.chain.findMany(), this.db.token.findMany({ where: { listed: true } })]);
    const nextChains = new Map<string, ChainInfo>();
    for (const c of chains) {
      nextChains.set(c.name, {
        name: c.name,
        chainId: c.chainId,
        vm: c.vm,
        nativeSymbol: c.nativeSymbol,
        nativeDecimals: c.nativeDecimals,
        enabled: c.enabled,
        gasless: c.gasless,
        maxGasDrop: BigInt(c.maxGasDrop.toFixed(0)),
        depositTarget: c.depositTarget,
        ...(c.gaslessExecutor ? { gaslessExecutor: c.gaslessExecutor } : {}),
        ...(c.feePayer ? { feePayer: c.feePayer } : {}),
        ...(c.defaultFulfillEtaSecs !== null ? { defaultFulfillEtaSecs: c.defaultFulfillEtaSecs } : {}),
      });
    }
    const nextTokens = new Map<string, TokenInfo>();
    for (const t of tokens) {
      const vm = nextChains.get(t.chainName)?.vm ?? 'evm';
      nextTokens.set(key(t.chainName, t.address), {
        chain: t.chainName,
        address: t.address,
        symbol: t.symbol,
        decimals: t.decimals,
        tier: t.tier as TokenInfo['tier'],
        permit: t.permit,
        ...(t.coingeckoId ? { priceId: t.coingeckoId } : {}),
        isNative: vm === 'evm' ? t.address === EVM_NATIVE : t.address === SVM_NATIVE,
      });
    }
    this.chains = nextChains;
    this.tokens = nextTokens;
    this.bySymbolIndex = new Map([...nextTokens.values()].map((t) => [key(t.chain, t.symbol), t]));
  }

  chain(name: string): ChainInfo | undefined {
    return this.chains.get(name);
  }

  /** Looks a token up by the address as a user typed it (any case on EVM chains). */
  token(chain: ChainInfo, address: string): TokenInfo | undefined {
    const normalised = chain.vm === 'evm' && isAddress(address, { strict: false }) ? getAddress(address) : address;
    return this.tokens.get(key(chain.name, normalised));
  }

  /** A listed token of a chain by symbol (the configured bridge asset). */
  bySymbol(chain: ChainInfo, symbol: string): TokenInfo | undefined {
    return this.bySymbolIndex.get(key(chain.name, symbol));
  }

  /** The native asset of a chain as a token. */
  native(chain: ChainInfo): TokenInfo | undefined {
    return this.tokens.get(key(chain.name, chain.vm === 'evm' ? EVM_NATIVE : SVM_NATIVE));
  }

  get loaded(): boolean {
    return this.chains.size > 0;
  }
}

function key(chain: string, address: string): string {
  return `${chain}:${address}`;
}

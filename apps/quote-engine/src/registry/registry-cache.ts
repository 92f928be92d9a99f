import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RpcError, type Chain, type ListChainsResponse, type ListTokensResponse, type Token } from '@xchain/contracts';
import { isEvmAddress } from '@xchain/order-codec';
import { HealthRegistry, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { REGISTRY_REFRESH_MS } from '../config.tokens';
import { RegistryRepository } from './registry.repository';

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
 * The registry in memory for the quote hot path and for ListTokens/ListChains, reloaded from the
 * database every few seconds (an operator's change shows within REGISTRY_REFRESH_MS; no quote or
 * list waits on the database for it). Until a load has found at least one chain (the database was
 * unreachable, or its registry is empty) the engine cannot quote anything: readiness says so
 * (`registry`), and every request is answered UNAVAILABLE / REGISTRY_NOT_LOADED rather than
 * INVALID_ARGUMENT / UNSUPPORTED_PAIR, which would tell a client its pair is wrong for good.
 */
@Injectable()
export class RegistryCache implements OnModuleInit, OnApplicationShutdown {
  private chains = new Map<string, ChainInfo>();
  private tokens = new Map<string, TokenInfo>();
  /** EVM tokens again, by lowercase address: a lookup in any case without checksumming the input. */
  /** Each chain's tokens by address (lower case too on EVM chains), by symbol, and its native asset: the quote path's lookups. */
  private tokensOf = new Map<string, ChainTokens>();
  private tokenList?: ListTokensResponse;
  private chainList?: ListChainsResponse;
  private timer?: NodeJS.Timeout;
  /** Why the last load failed, until one succeeds (shown by readiness). */
  private lastError?: string;
  /** Both lists as last loaded, as text: a reload that reads the same text changed nothing a client sees. */
  private listsText?: string;
  private readonly listsChanged: (() => void)[] = [];

  constructor(
    @Inject(RegistryRepository) private readonly tables: Pick<RegistryRepository, 'lists'>,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(REGISTRY_REFRESH_MS) private readonly refreshMs: number,
    @Inject(HealthRegistry) health: HealthRegistry,
  ) {
    health.register('registry', async () => this.health());
  }

  async onModuleInit(): Promise<void> {
    await this.reload().catch((err: unknown) => this.log.warn({ err: String(err) }, 'registry load failed; will retry'));
    this.timer = setInterval(() => {
      this.reload().catch((err: unknown) => this.log.warn({ err: String(err) }, 'registry reload failed'));
    }, this.refreshMs);
    this.timer.unref();
  }

  /** Ready once a load found chains; a failed reload after that keeps serving the last registry. */
  health(): { ok: boolean; detail: string } {
    if (this.loaded) {
      const detail = `${this.chains.size} chains, ${this.tokens.size} tokens`;
      return { ok: true, detail: this.lastError ? `${detail} (last reload failed: ${this.lastError})` : detail };
    }
    return {
      ok: false,
      detail: this.lastError ? `registry not loaded: ${this.lastError}` : 'registry not loaded: no chains in the database',
    };
  }

  /** UNAVAILABLE / REGISTRY_NOT_LOADED (retry after one refresh) while no registry is loaded. */
  assertLoaded(): void {
    if (!this.loaded) throw this.notLoaded();
  }

  private notLoaded(): RpcError {
    return RpcError.unavailable('registry not loaded yet', 'REGISTRY_NOT_LOADED', Math.max(1, Math.ceil(this.refreshMs / 1000)));
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * Calls `listener` after every load whose chain or token list differs from the last one (the
   * first load included), so copies kept elsewhere (the gateways') can be dropped.
   */
  onListsChanged(listener: () => void): void {
    this.listsChanged.push(listener);
  }

  async reload(): Promise<void> {
    try {
      await this.load();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw err;
    }
  }

  private async load(): Promise<void> {
    const [chains, tokens] = await this.tables.lists();
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
    const chainList: Chain[] = chains.map((c) => ({
      chain: c.name,
      chain_id: c.chainId.toString(),
      vm: c.vm,
      native_symbol: c.nativeSymbol,
      native_decimals: c.nativeDecimals,
      enabled: c.enabled,
      gasless: c.gasless,
      max_gas_drop: c.maxGasDrop.toFixed(0),
      deposit_target: c.depositTarget,
      ...(c.gaslessExecutor ? { gasless_executor: c.gaslessExecutor } : {}),
      ...(c.feePayer ? { fee_payer: c.feePayer } : {}),
      ...(c.explorerTxUrl ? { explorer_tx_url: c.explorerTxUrl } : {}),
    }));
    const tokenList: Token[] = tokens.map((t) => ({
      chain: t.chainName,
      chain_id: (nextChains.get(t.chainName)?.chainId ?? 0n).toString(),
      address: t.address,
      tier: t.tier as Token['tier'],
      symbol: t.symbol,
      decimals: t.decimals,
      logo_url: t.logoUrl,
      permit: t.permit,
    }));
    this.chains = nextChains;
    this.tokens = nextTokens;
    this.tokensOf = indexTokens(nextChains, nextTokens.values());
    this.chainList = { chains: chainList };
    this.tokenList = { tokens: tokenList };
    const listsText = JSON.stringify(this.chainList) + JSON.stringify(this.tokenList);
    if (listsText !== this.listsText) {
      this.listsText = listsText;
      for (const listener of this.listsChanged) {
        try {
          listener();
        } catch (err) {
          this.log.warn({ err: String(err) }, 'a registry change listener failed');
        }
      }
    }
  }

  /** ListChains as last loaded; UNAVAILABLE until a load found chains. */
  listChains(): ListChainsResponse {
    if (!this.chainList || !this.loaded) throw this.notLoaded();
    return this.chainList;
  }

  /** ListTokens (listed tokens) as last loaded; UNAVAILABLE until a load found chains. */
  listTokens(): ListTokensResponse {
    if (!this.tokenList || !this.loaded) throw this.notLoaded();
    return this.tokenList;
  }

  chain(name: string): ChainInfo | undefined {
    return this.chains.get(name);
  }

  /**
   * The chain a request names in `field`, for every operation that takes one (the quotes, the
   * order lists): INVALID_ARGUMENT naming the field, with `reason`, when the registry has no such
   * chain; UNAVAILABLE / REGISTRY_NOT_LOADED while no registry is loaded (the chain may well exist).
   */
  knownChain(name: string, field: string, reason: string): ChainInfo {
    this.assertLoaded();
    const chain = this.chains.get(name);
    if (!chain) throw RpcError.invalidArgument([{ field, description: `unknown chain ${name}` }], reason);
    return chain;
  }

  /** Looks a token up by the address as a user typed it (any case on EVM chains). */
  token(chain: ChainInfo, address: string): TokenInfo | undefined {
    // An EVM address in any case is looked up lowercase: no checksum of the input is needed.
    const of = this.tokensOf.get(chain.name);
    if (chain.vm === 'evm' && isEvmAddress(address)) return of?.byLower.get(address.toLowerCase());
    return of?.byAddress.get(address);
  }

  /** A listed token of a chain by symbol (the configured bridge asset). */
  bySymbol(chain: ChainInfo, symbol: string): TokenInfo | undefined {
    return this.tokensOf.get(chain.name)?.bySymbol.get(symbol);
  }

  /** The native asset of a chain as a token. */
  native(chain: ChainInfo): TokenInfo | undefined {
    return this.tokensOf.get(chain.name)?.native;
  }

  get loaded(): boolean {
    return this.chains.size > 0;
  }
}

interface ChainTokens {
  byAddress: Map<string, TokenInfo>;
  /** EVM chains only: by the address in lower case (a user's address in any case finds it). */
  byLower: Map<string, TokenInfo>;
  bySymbol: Map<string, TokenInfo>;
  native?: TokenInfo;
}

function indexTokens(chains: ReadonlyMap<string, ChainInfo>, tokens: Iterable<TokenInfo>): Map<string, ChainTokens> {
  const out = new Map<string, ChainTokens>();
  for (const t of tokens) {
    let of = out.get(t.chain);
    if (!of) out.set(t.chain, (of = { byAddress: new Map(), byLower: new Map(), bySymbol: new Map() }));
    const vm = chains.get(t.chain)?.vm;
    of.byAddress.set(t.address, t);
    if (vm !== 'svm') of.byLower.set(t.address.toLowerCase(), t);
    of.bySymbol.set(t.symbol, t);
    if (t.address === (vm === 'svm' ? SVM_NATIVE : EVM_NATIVE)) of.native = t;
  }
  return out;
}

function key(chain: string, address: string): string {
  return `${chain}:${address}`;
}

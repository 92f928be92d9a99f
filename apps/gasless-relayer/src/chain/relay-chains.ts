import { Inject, Injectable } from '@nestjs/common';
import { evmPublicClient } from '@xchain/chain-watch';
import { token } from '@xchain/service-kit';
import { type Address, type Hex, type PublicClient } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { isChainRpcUnavailable, onChain } from '@xchain/messaging';

export interface RelayWallet {
  address: Address;
  account: PrivateKeyAccount;
}

/** One EVM chain the relayer sends on, with its settings. */
export interface RelayChain {
  name: string;
  client: PublicClient;
  /** The hot wallets gasless deposits are spread over. */
  wallets: RelayWallet[];
  /** The operator (filler) wallet that sends fills, cancels, refunds and claims (D15), when configured. */
  operator?: RelayWallet;
  confirmations: number;
  replaceAfterBlocks: number;
  walletFloorWei: bigint;
  /** The chain id the RPC serves (asked once, then cached). */
  chainId(): Promise<bigint>;
}

/**
 * The chains of `EVM_RPC_URLS`, each over viem HTTP with a deadline per call and no retries of
 * its own (the relayer's loops retry). Every key is a wallet on every chain.
 */
/** The relayer's settings (its env) that make its chains: RPCs, wallets, confirmations, replacement and floors. */
export interface RelayChainSettings {
  FILLER_PRIVATE_KEYS: ReadonlyMap<string, Hex>;
  EVM_RPC_URLS: ReadonlyMap<string, string>;
  EVM_RPC_TIMEOUT_MS: number;
  RELAYER_PRIVATE_KEYS: readonly Hex[];
  CHAIN_WATCH_CONFIRMATIONS: number;
  CHAIN_CONFIRMATIONS: ReadonlyMap<string, number>;
  RELAY_REPLACE_AFTER_BLOCKS: number;
  RELAY_REPLACE_AFTER: ReadonlyMap<string, number>;
  RELAY_WALLET_FLOOR_WEI: bigint;
  RELAY_WALLET_FLOORS: ReadonlyMap<string, bigint>;
}

export const RELAY_CHAIN_SETTINGS = token<RelayChainSettings>('RELAY_CHAIN_SETTINGS');

@Injectable()
export class RelayChains {
  private readonly chains = new Map<string, RelayChain>();

  constructor(@Inject(RELAY_CHAIN_SETTINGS) env: RelayChainSettings) {
    const wallets = env.RELAYER_PRIVATE_KEYS.map((key: Hex) => {
      const account = privateKeyToAccount(key);
      return { address: account.address, account };
    });
    for (const [name, url] of env.EVM_RPC_URLS) {
      // Concurrent reads (many submits at once) share one HTTP round trip as a JSON-RPC batch.
      const client = evmPublicClient(url, { timeoutMs: env.EVM_RPC_TIMEOUT_MS, batch: { batchSize: 100, wait: 2 } });
      let id: Promise<bigint> | undefined;
      const operatorKey = env.FILLER_PRIVATE_KEYS.get(name) ?? env.FILLER_PRIVATE_KEYS.get('*');
      const operator = operatorKey ? privateKeyToAccount(operatorKey) : undefined;
      this.chains.set(name, {
        name,
        client,
        wallets,
        ...(operator ? { operator: { address: operator.address, account: operator } } : {}),
        confirmations: env.CHAIN_CONFIRMATIONS.get(name) ?? env.CHAIN_WATCH_CONFIRMATIONS,
        replaceAfterBlocks: env.RELAY_REPLACE_AFTER.get(name) ?? env.RELAY_REPLACE_AFTER_BLOCKS,
        walletFloorWei: env.RELAY_WALLET_FLOORS.get(name) ?? env.RELAY_WALLET_FLOOR_WEI,
        chainId: () => {
          id ??= client.getChainId().then(BigInt, (err: unknown) => {
            id = undefined; // ask again next time
            throw err;
          });
          return id;
        },
      });
    }
  }

  /** Every wallet that has a lane on a chain: the hot wallets and the operator wallet, each once. */
  static laneWallets(chain: RelayChain): RelayWallet[] {
    const all = chain.operator ? [...chain.wallets, chain.operator] : chain.wallets;
    return all.filter((w, i) => all.findIndex((x) => x.address === w.address) === i);
  }

  all(): RelayChain[] {
    return [...this.chains.values()];
  }

  byName(name: string): RelayChain | undefined {
    return this.chains.get(name);
  }

  /**
   * The configured chain serving `chainId`. Chains whose id is not known yet are asked at once, in
   * parallel; when none serves it and one of them did not answer, that one may be it: its failure
   * (a ChainRpcUnavailableError, so 503 CHAIN_RPC_UNAVAILABLE) is thrown rather than "not served".
   */
  async byChainId(chainId: bigint): Promise<RelayChain | undefined> {
    const chains = [...this.chains.values()];
    const ids = await Promise.allSettled(chains.map((chain) => onChain(chain.name, chain.chainId())));
    const found = chains.find((_, i) => ids[i]!.status === 'fulfilled' && (ids[i] as PromiseFulfilledResult<bigint>).value === chainId);
    if (found) return found;
    const unanswered = ids.find((r): r is PromiseRejectedResult => r.status === 'rejected' && isChainRpcUnavailable(r.reason));
    if (unanswered) throw unanswered.reason;
    return undefined;
  }
}

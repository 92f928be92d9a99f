import { Inject, Injectable } from '@nestjs/common';
import { ListChainsRpc, ListTokensRpc, RpcError, type ListChainsResponse, type ListTokensResponse } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { Clock, token } from '@xchain/service-kit';
type Token = ListTokensResponse['tokens'][number];
type Chain = ListChainsResponse['chains'][number];

export const REGISTRY_CACHE_MS = token<number>('REGISTRY_CACHE_MS');

/**
 * Token and chain metadata, asked of the quote-engine (which owns the registry) and cached for a
 * while: symbols and decimals change rarely, and a stale entry only affects display fields.
 */
@Injectable()
export class RegistryClient {
  private cached?: { at: number; chains: Map<string, Chain>; tokens: Map<string, Token> };
  private inflight?: Promise<NonNullable<RegistryClient['cached']>>;

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(REGISTRY_CACHE_MS) private readonly ttlMs: number,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async chain(name: string): Promise<Chain | undefined> {
    return (await this.load()).chains.get(name);
  }

  async chainById(chainId: string): Promise<Chain | undefined> {
    return [...(await this.load()).chains.values()].find((c) => c.chain_id === chainId);
  }

  async token(chain: string, address: string): Promise<Token | undefined> {
    return (await this.load()).tokens.get(tokenKey(chain, address));
  }

  private async load() {
    if (this.cached && this.clock.nowMs() - this.cached.at < this.ttlMs) return this.cached;
    this.inflight ??= this.fetch().finally(() => (this.inflight = undefined));
    try {
      return await this.inflight;
    } catch (err) {
      if (this.cached) return this.cached; // serve the last good copy while the registry is away
      if (err instanceof RpcError) throw err;
      throw RpcError.unavailable('the token registry is unavailable', 'REGISTRY_UNAVAILABLE');
    }
  }

  private async fetch() {
    const [chains, tokens] = await Promise.all([this.rpc.call(ListChainsRpc, {}), this.rpc.call(ListTokensRpc, {})]);
    this.cached = {
      at: this.clock.nowMs(),
      chains: new Map(chains.chains.map((c) => [c.chain, c])),
      tokens: new Map(tokens.tokens.map((t) => [tokenKey(t.chain, t.address), t])),
    };
    return this.cached;
  }
}

/** EVM addresses compare case-insensitively; Solana keys are case-sensitive base58. */
function tokenKey(chain: string, address: string): string {
  return `${chain}:${address.startsWith('0x') ? address.toLowerCase() : address}`;
}

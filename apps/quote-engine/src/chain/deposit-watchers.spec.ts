import type { CursorStore } from '@xchain/chain-watch';
import type { Logger } from '@xchain/telemetry';
import type { ChainInfo } from '../registry/registry-cache';
import type { DepositChain } from './deposit-chain';
import { DepositWatchers } from './deposit-watchers';

const ROUTER_A = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ROUTER_B = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

function newTestWatchers(chainNames: string[]) {
  const registry = new Map<string, Pick<ChainInfo, 'vm' | 'depositTarget' | 'chainId'>>();
  const chains = new Map<string, DepositChain>(
    chainNames.map((name) => [
      name,
      // head 0: each pass reads nothing; the chain id matches the registry's
      {
        chainId: async () => Number(registry.get(name)?.chainId ?? 0n),
        head: async () => 0n,
        routerLogs: async () => [],
        blockTime: async () => new Date(0),
        blockHash: async () => '0x',
      },
    ]),
  );
  const saved = new Map<string, bigint>();
  const cursors: CursorStore = {
    load: async (n) => saved.get(n),
    save: async (n, b) => void saved.set(n, b),
    rewind: async (n, b) => void saved.set(n, b),
  };
  let check: (() => Promise<{ ok: boolean; detail?: string }>) | undefined;
  const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const watchers = new DepositWatchers(
    chains,
    { watch: { confirmations: 10, pollMs: 60_000, maxBlockRange: 100 }, confirmations: new Map([['ethereum', 2]]) },
    { chain: (name: string) => registry.get(name) as ChainInfo | undefined },
    cursors,
    { publish: async () => 'published' },
    { register: (_name: string, c: typeof check) => void (check = c) },
    log,
  );
  return { watchers, registry, readiness: () => check!(), saved };
}

/** Polls until the readiness detail matches (the watchers read in the background). */
async function detailBecomes(readiness: () => Promise<{ ok: boolean; detail?: string }>, pattern: RegExp) {
  const deadline = Date.now() + 2000;
  for (;;) {
    const r = await readiness();
    expect(r.ok).toBe(true);
    if (pattern.test(r.detail ?? '')) return r.detail;
    if (Date.now() > deadline) throw new Error(`readiness detail stayed "${r.detail}"`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('DepositWatchers', () => {
  it('is off, and ready, without RPCs', async () => {
    const { watchers, readiness } = newTestWatchers([]);
    watchers.onApplicationBootstrap();
    expect(await readiness()).toEqual({ ok: true, detail: 'off (EVM_RPC_URLS names no chain)' });
    await watchers.onApplicationShutdown();
  });

  it("watches each chain's router at its confirmation depth, follows a router change, and says why a chain is not watched", async () => {
    const { watchers, registry, readiness } = newTestWatchers(['base', 'ethereum', 'solana', 'zora']);
    registry.set('base', { vm: 'evm', chainId: 8453n, depositTarget: ROUTER_A.toLowerCase() });
    registry.set('ethereum', { vm: 'evm', chainId: 1n, depositTarget: ROUTER_B });
    registry.set('solana', { vm: 'svm', chainId: 900n, depositTarget: 'Router1111111111111111111111111111111111111' });
    await watchers.sync();
    const detail = await detailBecomes(readiness, /base.*read up to.*ethereum.*read up to/);
    expect(detail).toBe(
      [
        `deposits:base:${ROUTER_A.toLowerCase()}: read up to block -1 (10 confirmations)`,
        `deposits:ethereum:${ROUTER_B.toLowerCase()}: read up to block -1 (2 confirmations)`,
        'deposits:solana: not watched: no EVM deposit_target in the registry',
        'deposits:zora: not watched: not in the registry',
      ].join('; '),
    );
    registry.set('base', { vm: 'evm', chainId: 8453n, depositTarget: ROUTER_B });
    registry.set('zora', { vm: 'evm', chainId: 7777777n, depositTarget: ROUTER_A });
    await watchers.sync();
    await detailBecomes(
      readiness,
      new RegExp(`deposits:base:${ROUTER_B.toLowerCase()}: read up to.*deposits:zora:${ROUTER_A.toLowerCase()}: read up to`),
    );
    await watchers.onApplicationShutdown();
  });
});

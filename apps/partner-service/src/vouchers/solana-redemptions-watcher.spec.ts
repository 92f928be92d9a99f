import type { Logger } from '@xchain/telemetry';
import type { SolanaRedemptionChain } from './solana-redemptions-watcher';
import { SolanaRedemptionsWatcher } from './solana-redemptions-watcher';

const PROGRAM = 'HukRbmYL8qHxAxMjDdptFgfHUdL1FaPvP2aVsVCr7vrL';
const log = { info: () => undefined, warn: () => undefined } as unknown as Logger;

/** A watcher whose readiness check is captured; the chain is never asked when the watcher is off. */
function watcher(chain: SolanaRedemptionChain | null, routers: Record<string, string>) {
  const checks = new Map<string, () => Promise<{ ok: boolean; detail?: string }>>();
  const w = new SolanaRedemptionsWatcher(
    chain,
    { pollMs: 1000 },
    { voucher_routers: routers },
    { byId: () => Promise.resolve(null), markRedeemed: () => Promise.resolve(false) },
    { load: () => Promise.resolve(undefined), save: () => Promise.resolve() },
    { register: (n, c) => checks.set(n, c) },
    log,
  );
  return { w, check: () => checks.get('solana_vouchers')!() };
}

const unreachable = new Proxy({} as SolanaRedemptionChain, {
  get: () => () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8899')),
});

describe('SolanaRedemptionsWatcher', () => {
  it('watches only the base58 entries of voucher_routers', () => {
    const { w } = watcher(unreachable, { base: '0xC4F27487227A8E1187c41dAe95667DB991f38C1A', solana: PROGRAM, bogus: 'not-a-key' });
    expect(w.programs).toEqual([{ chainName: 'solana', programId: PROGRAM }]);
  });

  it('is off, and ready, without a Solana RPC or without a Solana voucher program', async () => {
    await expect(watcher(null, { solana: PROGRAM }).check()).resolves.toEqual({ ok: true, detail: 'off (SOLANA_RPC_URL unset)' });
    await expect(watcher(unreachable, { base: '0xC4F27487227A8E1187c41dAe95667DB991f38C1A' }).check()).resolves.toEqual({
      ok: true,
      detail: 'off (voucher_routers names no Solana voucher program)',
    });
  });

  it('stays ready while the cluster does not answer, and says why', async () => {
    const { w, check } = watcher(unreachable, { solana: PROGRAM });
    await w.readOnce();
    await expect(check()).resolves.toEqual({ ok: true, detail: 'cluster: retrying: connect ECONNREFUSED 127.0.0.1:8899' });
  });
});

import { chainHealth } from './chain-health';
import type { RelayChains } from './relay-chains';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';

/** Two chains whose RPCs answer `balances` (one unreachable when asked). */
function chains(balances: Record<string, bigint>, unreachable?: string): RelayChains {
  const chain = (name: string) => ({
    name,
    walletFloorWei: 10n ** 16n,
    wallets: [{ address: A }, { address: B }],
    client: {
      getBlockNumber: async () => {
        if (name === unreachable) throw new Error('HTTP request failed.\n\nURL: https://rpc.example/v2/secret-key');
        return 123n;
      },
      getBalance: async ({ address }: { address: string }) => balances[address] ?? 0n,
    },
  });
  return { all: () => [chain('base'), chain('arbitrum')] } as unknown as RelayChains;
}

describe('the relayer chains readiness check', () => {
  it('names no wallet and no balance; the observer (the metrics) gets each', async () => {
    const seen: unknown[] = [];
    const check = chainHealth(chains({ [A]: 5n * 10n ** 17n, [B]: 10n ** 15n }), (...args) => seen.push(args));
    const r = await check();
    expect(r).toEqual({
      ok: false,
      detail: 'base: block 123; 1 of 2 wallets below the floor; arbitrum: block 123; 1 of 2 wallets below the floor',
    });
    expect(r.detail).not.toMatch(/0x|0\.5|0\.001/i);
    expect(seen).toContainEqual(['base', B, 10n ** 15n, 10n ** 16n]);
    expect(seen).toHaveLength(4);
  });

  it('says funded when every wallet holds its floor, and an unreachable RPC by its first line only (no URL)', async () => {
    expect(await chainHealth(chains({ [A]: 10n ** 18n, [B]: 10n ** 18n }))()).toEqual({
      ok: true,
      detail: 'base: block 123; 2 wallets funded; arbitrum: block 123; 2 wallets funded',
    });
    const down = await chainHealth(chains({ [A]: 10n ** 18n, [B]: 10n ** 18n }, 'arbitrum'))();
    expect(down).toEqual({ ok: false, detail: 'base: block 123; 2 wallets funded; arbitrum: RPC unreachable (HTTP request failed.)' });
  });
});

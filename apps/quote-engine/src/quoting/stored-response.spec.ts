import type { Quote } from '@xchain/contracts';
import { XCHAIN_ROUTER_ABI, depositTx } from '@xchain/evm-gasless';
import { orderToWire, sampleOrder } from '@xchain/order-codec';
import { decodeFunctionData, getAddress } from 'viem';
import { responseForStorage, storedResponse } from './stored-response';

const ROUTER = getAddress('0x7ccfeacba472f31962cb515fe4ce4477d15c4a04');
const plain = sampleOrder({ amountIn: 123_456_789n, salt: `0x${'5e'.repeat(32)}` });
const order = orderToWire(plain, []);
const call = depositTx(plain, ROUTER);
const deposit_tx = { to: call.to, data: call.data, value: call.value.toString() };
const RETAINED = '2026-11-30T16:13:18Z';
const retainedUntil = new Date(RETAINED);
const crossChain = {
  cross_chain: {
    quote_hash: `0x${'01'.repeat(32)}`,
    amount_in: '123456789',
    order,
    expires_at: '2026-11-23T16:43:18Z',
    retained_until: RETAINED,
    deposit_tx,
  },
} as unknown as Quote;
const gasless = {
  cross_chain: { quote_hash: `0x${'03'.repeat(32)}`, amount_in: '123456789', order, retained_until: RETAINED, gasless: true },
} as unknown as Quote;
const sameChain = {
  same_chain_swap: {
    quote_hash: `0x${'02'.repeat(32)}`,
    amount_in: '5',
    order,
    retained_until: RETAINED,
    deposit_tx: { ...deposit_tx, value: '5' },
  },
} as unknown as Quote;

const hashOf = (q: Quote) => ('cross_chain' in q ? q.cross_chain.quote_hash : q.same_chain_swap.quote_hash);

/** Through JSON, as PostgreSQL returns it. */
const viaJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('stored quote responses', () => {
  it.each([
    ['cross-chain', crossChain],
    ['gasless', gasless],
    ['same-chain', sameChain],
  ])('a %s quote is stored without its order and retention end, and read back as it was answered', (_kind, quote) => {
    const stored = responseForStorage(quote);
    expect(JSON.stringify(stored)).not.toContain('"order"');
    expect(JSON.stringify(stored)).not.toContain(order.salt);
    expect(JSON.stringify(stored)).not.toContain('retained_until');
    expect(storedResponse(viaJson(stored), viaJson(order), retainedUntil, hashOf(quote))).toEqual(quote);
  });

  it('gives a quote stored before it carried retained_until the one of its row', () => {
    const { retained_until: _none, ...older } = (crossChain as { cross_chain: Record<string, unknown> }).cross_chain;
    const back = storedResponse(viaJson({ cross_chain: older }), order, new Date('2026-12-01T08:00:00.000Z'), hashOf(crossChain));
    expect(back).toEqual({ cross_chain: { ...older, retained_until: '2026-12-01T08:00:00Z' } });
  });

  it('stores a deposit transaction without its calldata, and reads back calldata that deposits this order', () => {
    const stored = viaJson(responseForStorage(crossChain)) as { cross_chain: { deposit_tx: Record<string, string> } };
    expect(stored.cross_chain.deposit_tx).toEqual({ to: ROUTER, value: '0' });
    const back = storedResponse(stored, viaJson(order), retainedUntil, hashOf(crossChain));
    if (!('cross_chain' in back) || !back.cross_chain.deposit_tx) throw new Error('expected a cross-chain quote with deposit_tx');
    const decoded = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: back.cross_chain.deposit_tx.data as `0x${string}` });
    expect(decoded.functionName).toBe('deposit');
    expect(decoded.args[0]).toMatchObject({ salt: plain.salt, amountIn: plain.amountIn, depositTarget: plain.depositTarget });
  });

  it('does not change the answered quote it stores', () => {
    const before = JSON.stringify(crossChain);
    responseForStorage(crossChain);
    expect(JSON.stringify(crossChain)).toBe(before);
  });

  it('reads a row written before the order and the calldata were left out (both inside the response) the same way', () => {
    expect(storedResponse(viaJson(crossChain), order, retainedUntil, hashOf(crossChain))).toEqual(crossChain);
    expect(storedResponse(viaJson(sameChain), order, retainedUntil, hashOf(sameChain))).toEqual(sameChain);
  });

  it('leaves out the fields that repeat the order and the row key only when they are exactly what is put back', () => {
    const answered = {
      cross_chain: {
        quote_hash: `0x${'04'.repeat(32)}`,
        amount_in: order.amount_in,
        amount_out: order.amount_out,
        min_amount_out: '1', // not the order's: kept
        slippage_bps: Number(order.slippage_bps),
        order,
        retained_until: RETAINED,
      },
    } as unknown as Quote;
    const stored = viaJson(responseForStorage(answered)) as { cross_chain: Record<string, unknown> };
    expect(Object.keys(stored.cross_chain).sort()).toEqual(['min_amount_out', '~']);
    expect(storedResponse(stored, viaJson(order), retainedUntil, hashOf(answered))).toEqual(answered);
  });
});

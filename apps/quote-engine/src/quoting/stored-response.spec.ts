import type { OrderWire, Quote } from '@xchain/contracts';
import { responseForStorage, storedResponse } from './stored-response';

const order = { version: '1', salt: `0x${'ab'.repeat(32)}`, amount_in: '100', referrers: [] } as unknown as OrderWire;
const crossChain = { cross_chain: { quote_hash: `0x${'01'.repeat(32)}`, amount_in: '100', order, expires_at: '2026-11-23T16:43:18Z', gasless: true } } as unknown as Quote;
const sameChain = { same_chain_swap: { quote_hash: `0x${'02'.repeat(32)}`, amount_in: '5', order, deposit_tx: { to: '0x1', data: '0x', value: '5' } } } as unknown as Quote;

describe('stored quote responses', () => {
  it.each([['cross-chain', crossChain], ['same-chain', sameChain]])('a %s quote is stored without its order and read back as it was answered', (_kind, quote) => {
    const stored = responseForStorage(quote);
    expect(JSON.stringify(stored)).not.toContain('"order"');
    expect(JSON.stringify(stored)).not.toContain(order.salt);
    // Through JSON, as PostgreSQL returns it.
    expect(storedResponse(JSON.parse(JSON.stringify(stored)), JSON.parse(JSON.stringify(order)))).toEqual(quote);
  });

  it('does not change the answered quote it stores', () => {
    const before = JSON.stringify(crossChain);
    responseForStorage(crossChain);
    expect(JSON.stringify(crossChain)).toBe(before);
  });

  it('reads a row written before the split (order inside the response too) the same way', () => {
    expect(storedResponse(JSON.parse(JSON.stringify(crossChain)), order)).toEqual(crossChain);
  });
});

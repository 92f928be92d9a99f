import { RpcError } from '@xchain/contracts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, decodeCursor, decodeIdCursor, encodeCursor, encodeIdCursor, pageSizeOf } from './cursor';

describe('referral cursors', () => {
  it('round-trips a position, Solana keys and checksummed addresses unchanged', () => {
    const k = {
      referrer: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
      chain: 'solana',
      token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    };
    const c = encodeCursor(k);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)).toEqual(k);
  });

  it.each([
    '',
    'not-base64!',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('["g2","a","b","c"]').toString('base64url'),
    Buffer.from('["g1","a",3,"c"]').toString('base64url'),
    Buffer.from('["g1","a\\u0000","b","c"]').toString('base64url'),
  ])('rejects %p as INVALID_ARGUMENT naming the cursor', (bad) => {
    try {
      decodeCursor(bad);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(RpcError);
      expect((err as RpcError).status.code).toBe(3);
      expect(JSON.stringify((err as RpcError).status.details)).toContain('INVALID_CURSOR');
    }
  });

  it('round-trips id cursors and refuses a cursor of another list', () => {
    const c = encodeIdCursor('e1', 9_007_199_254_740_993n);
    expect(decodeIdCursor('e1', c)).toBe(9_007_199_254_740_993n);
    for (const bad of [
      encodeIdCursor('d1', 5n),
      encodeCursor({ referrer: 'a', chain: 'b', token: 'c' }),
      Buffer.from('["e1","0"]').toString('base64url'),
      Buffer.from('["e1","-1"]').toString('base64url'),
      Buffer.from('["e1",5]').toString('base64url'),
      'garbage',
    ]) {
      expect(() => decodeIdCursor('e1', bad)).toThrow(RpcError);
    }
  });

  it('defaults, caps and rejects page sizes', () => {
    expect(pageSizeOf(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSizeOf(7)).toBe(7);
    expect(pageSizeOf(MAX_PAGE_SIZE + 1)).toBe(MAX_PAGE_SIZE);
    expect(() => pageSizeOf(0)).toThrow(RpcError);
  });
});

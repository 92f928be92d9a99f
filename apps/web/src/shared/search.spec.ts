import { classifySearch, searchPath } from './search';

describe('the explorer search box', () => {
  it('tells hashes, signatures and addresses apart', () => {
    const hash = `0x${'Ab'.repeat(32)}`;
    expect(classifySearch(` ${hash} `)).toEqual({ kind: 'hash', value: hash.toLowerCase() });
    expect(classifySearch('0x976EA74026E726554dB657fA54763abd0C3a0aa9').kind).toBe('address');
    expect(classifySearch('0x976ea74026e726554db657fa54763abd0c3a0aa9').kind).toBe('address');
    expect(classifySearch('So11111111111111111111111111111111111111112').kind).toBe('address');
    expect(classifySearch('5'.repeat(88)).kind).toBe('signature');
    for (const bad of ['', '0x1234', 'hello world', `0x${'g'.repeat(64)}`, '0OIl'.repeat(10)])
      expect(classifySearch(bad).kind).toBe('invalid');
  });

  it('leads each to its page', () => {
    expect(searchPath(classifySearch(`0x${'1'.repeat(64)}`))).toBe(`/explorer/order/0x${'1'.repeat(64)}`);
    expect(searchPath(classifySearch('0x976EA74026E726554dB657fA54763abd0C3a0aa9'))).toBe(
      '/explorer/address/0x976EA74026E726554dB657fA54763abd0C3a0aa9',
    );
    expect(searchPath(classifySearch('nope'))).toBeUndefined();
  });
});

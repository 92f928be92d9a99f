import { parseOperatorKeys } from './chain-config';

const K1 = `0x${'11'.repeat(32)}`;
const K2 = `0x${'22'.repeat(32)}`;

describe('FILLER_PRIVATE_KEYS', () => {
  it('takes one key for every chain, or chain=key pairs with * for the rest, or nothing', () => {
    expect([...parseOperatorKeys(K1)]).toEqual([['*', K1]]);
    expect([...parseOperatorKeys(`base=${K1}, *=${K2}`)]).toEqual([
      ['base', K1],
      ['*', K2],
    ]);
    expect(parseOperatorKeys('').size).toBe(0);
  });

  it('refuses a malformed entry, a chain named twice and a short key, without repeating the key', () => {
    expect(() => parseOperatorKeys(`base=${K1},base=${K2}`)).toThrow('base is listed twice');
    expect(() => parseOperatorKeys(`Base=${K1}`)).toThrow('is not chain=key');
    expect(() => parseOperatorKeys(`${K1},${K2}`)).toThrow('is not chain=key');
    let msg = '';
    try {
      parseOperatorKeys('base=0x1234abcd');
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toMatch(/not a 32-byte hex private key/);
    expect(msg).not.toContain('1234abcd');
  });
});

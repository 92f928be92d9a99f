import { confirmationsFor, parseChainConfirmations } from './confirmations';

describe('CHAIN_CONFIRMATIONS', () => {
  it('reads chain=N pairs, ignoring blanks and spaces', () => {
    expect([...parseChainConfirmations('')]).toEqual([]);
    expect([...parseChainConfirmations(' ethereum=12 , base=0 ,')]).toEqual([
      ['ethereum', 12],
      ['base', 0],
    ]);
  });

  it('refuses depths that are not whole numbers in range, and unnamed or repeated chains', () => {
    expect(() => parseChainConfirmations('12')).toThrow('is not chain=N');
    expect(() => parseChainConfirmations('Base=1')).toThrow('lowercase chain name');
    expect(() => parseChainConfirmations('base=-1')).toThrow('the confirmations of base must be a whole number from 0 to 1000');
    expect(() => parseChainConfirmations('base=1.5')).toThrow('whole number');
    expect(() => parseChainConfirmations('base=1001')).toThrow('whole number');
    expect(() => parseChainConfirmations('base=')).toThrow('whole number');
    expect(() => parseChainConfirmations('base=1,base=2')).toThrow('base is named twice');
  });

  it('overrides the default for the named chains only', () => {
    const overrides = parseChainConfirmations('ethereum=12,base=0');
    expect(confirmationsFor('ethereum', overrides, 10)).toBe(12);
    expect(confirmationsFor('base', overrides, 10)).toBe(0);
    expect(confirmationsFor('arbitrum', overrides, 10)).toBe(10);
  });
});

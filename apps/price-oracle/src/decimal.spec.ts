import { parseDecimalPrice, withPrecision } from './decimal';

describe('parseDecimalPrice', () => {
  it.each([
    ['3512.27', 351227n, -2],
    ['95210.40', 9521040n, -2],
    ['1.0000', 10000n, -4],
    ['1', 1n, 0],
    ['0.00001013', 1013n, -8],
    ['0.1', 1n, -1],
    ['0.2', 2n, -1],
    ['123456789012345678901234567890.123456789', 123456789012345678901234567890123456789n, -9],
  ])('%s → %s × 10^%s exactly', (text, price, expo) => {
    expect(parseDecimalPrice(text)).toEqual({ price, expo });
  });

  it('keeps digits a float would lose', () => {
    // 9007199254740993 is 2^53 + 1: a float rounds it to ...992.
    expect(parseDecimalPrice('9007199254740993.000000000000000001')).toEqual({ price: 9007199254740993000000000000000001n, expo: -18 });
    // 0.1 + 0.2 is exactly 0.3 here (all three at 10^-1), unlike in binary floating point.
    expect(parseDecimalPrice('0.1').price + parseDecimalPrice('0.2').price).toBe(parseDecimalPrice('0.3').price);
  });

  it.each(['', '0', '0.000', '-1', '+1', '1e3', '1.', '.5', '01.5', ' 1.5', '1.5 ', '1,5', 'NaN', `0.${'0'.repeat(36)}1`])(
    'refuses %j',
    (text) => {
      expect(() => parseDecimalPrice(text)).toThrow();
    },
  );

  it('accepts up to 36 decimals, the finest exponent a price may carry', () => {
    expect(parseDecimalPrice(`0.${'0'.repeat(35)}1`)).toEqual({ price: 1n, expo: -36 });
  });
});

describe('withPrecision', () => {
  it('appends zeros up to the wanted significant digits, keeping the value', () => {
    expect(withPrecision({ price: 351227n, expo: -2 }, 12)).toEqual({ price: 351227000000n, expo: -8 });
    expect(withPrecision({ price: 10000n, expo: -4 }, 12)).toEqual({ price: 100000000000n, expo: -11 });
  });

  it('leaves a value that already has the digits alone', () => {
    expect(withPrecision({ price: 1234567890123n, expo: -3 }, 12)).toEqual({ price: 1234567890123n, expo: -3 });
  });

  it('refuses to go below 10^-36', () => {
    expect(() => withPrecision({ price: 1n, expo: -30 }, 12)).toThrow(RangeError);
  });
});

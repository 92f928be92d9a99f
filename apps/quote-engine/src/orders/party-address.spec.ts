import { toBytes32 } from '@xchain/order-codec';
import { partyAddressBytes32 } from './party-address';

describe('partyAddressBytes32', () => {
  const evm = '0x52908400098527886E0F7030069857D2E4169EE7';
  const sol = 'ASWgJqYMFCL2iGNKV2TMFCJpH42NzDDpF8bYXkwDwnPX';

  it('reads an EVM address in any case as the same left-padded bytes32 the order holds', () => {
    const expected = toBytes32('evm', evm);
    expect(partyAddressBytes32(evm)).toBe(expected);
    expect(partyAddressBytes32(evm.toLowerCase())).toBe(expected);
    expect(partyAddressBytes32(`0x${evm.slice(2).toUpperCase()}`)).toBe(expected);
    expect(expected).toBe(`0x000000000000000000000000${evm.slice(2).toLowerCase()}`);
  });

  it('reads a Solana key as its 32 bytes, and a bytes32 hex as it is', () => {
    expect(partyAddressBytes32(sol)).toBe(toBytes32('svm', sol));
    const raw = toBytes32('svm', sol);
    expect(partyAddressBytes32(raw.toUpperCase().replace('0X', '0x'))).toBe(raw);
  });

  it('refuses what is neither', () => {
    for (const bad of ['', '0x1234', `0x${'g'.repeat(40)}`, 'not-an-address', '1111', `${sol}0`, 'O'.repeat(40), `0x${'0'.repeat(63)}`])
      expect(partyAddressBytes32(bad)).toBeUndefined();
  });
});

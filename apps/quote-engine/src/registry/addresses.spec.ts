import { randomBytes } from 'node:crypto';
import { checksumEvmAddress, keccakReady } from '@xchain/order-codec';
import { getAddress } from 'viem';
import { isChainAddress, normaliseAddress } from './addresses';

describe('EVM address normalisation', () => {
  const randomCase = (hex: string) => [...hex].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c)).join('');

  it('gives the EIP-55 form viem gives, for 2,000 random addresses typed in random case', async () => {
    const check = () => {
      for (let i = 0; i < 1000; i++) {
        const lower = `0x${randomBytes(20).toString('hex')}`;
        const typed = `0x${randomCase(lower.slice(2))}`;
        expect(checksumEvmAddress(typed)).toBe(getAddress(lower));
        expect(normaliseAddress('evm', typed)).toBe(getAddress(lower));
      }
    };
    check();
    await keccakReady;
    check();
  });

  it('answers an address asked again (kept, or worked out again once the table of answers is full) as the first time', async () => {
    await keccakReady;
    const typed = Array.from({ length: 5000 }, () => `0x${randomCase(randomBytes(20).toString('hex'))}`);
    const first = typed.map((a) => checksumEvmAddress(a));
    typed.forEach((a, i) => {
      expect(first[i]).toBe(getAddress(a.toLowerCase()));
      expect(checksumEvmAddress(a)).toBe(first[i]);
      expect(checksumEvmAddress(a.toLowerCase())).toBe(first[i]);
    });
  });

  it('keeps the vectors of EIP-55', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(normaliseAddress('evm', a.toLowerCase())).toBe(a);
      expect(normaliseAddress('evm', `0x${a.slice(2).toUpperCase()}`)).toBe(a);
    }
  });

  it('refuses what is not 0x and 40 hex digits', () => {
    for (const bad of [
      '',
      '0x',
      '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg',
      ' 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    ]) {
      expect(normaliseAddress('evm', bad)).toBeUndefined();
    }
  });
});

describe('isChainAddress', () => {
  it('accepts exactly what normaliseAddress normalises, on both VMs', () => {
    const inputs = [
      `0x${randomBytes(20).toString('hex')}`,
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe',
      '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1', // 31 bytes once decoded
      'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10', // 0 is not base58
      '',
    ];
    for (const vm of ['evm', 'svm'] as const) {
      for (const a of inputs) expect([vm, a, isChainAddress(vm, a)]).toEqual([vm, a, normaliseAddress(vm, a) !== undefined]);
    }
    expect(isChainAddress('evm', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(true);
    expect(isChainAddress('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
  });
});

import { Keypair } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import { parseFeePayerKey } from './fee-payer-key';

describe('SOLANA_FEE_PAYER_KEY', () => {
  const key = Keypair.generate();

  it('reads base58 and a solana-keygen JSON array to the same key; empty is none', () => {
    expect(parseFeePayerKey(base58Encode(key.secretKey))?.publicKey.toBase58()).toBe(key.publicKey.toBase58());
    expect(parseFeePayerKey(JSON.stringify(Array.from(key.secretKey)))?.publicKey.toBase58()).toBe(key.publicKey.toBase58());
    expect(parseFeePayerKey('  ')).toBeUndefined();
  });

  it('refuses a wrong length, a corrupted public half and junk, without repeating the key', () => {
    const secret = base58Encode(key.secretKey);
    const corrupted = Uint8Array.from(key.secretKey);
    corrupted[40]! ^= 1;
    for (const bad of [base58Encode(key.secretKey.slice(0, 32)), base58Encode(corrupted), '[1,2,300]', 'not-base58-0OIl', '[oops']) {
      let message = '';
      try {
        parseFeePayerKey(bad);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain(secret.slice(0, 12));
      expect(message).not.toContain(bad);
    }
  });
});

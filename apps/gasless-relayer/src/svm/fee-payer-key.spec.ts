import { Keypair } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import { parseFeePayerKey, parseSolanaPublicKey } from './fee-payer-key';

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

describe('SOLANA_TREASURY', () => {
  it('reads a base58 public key; empty is none; a secret key, junk or a short key is refused', () => {
    const key = Keypair.generate();
    expect(parseSolanaPublicKey(` ${key.publicKey.toBase58()} `)?.equals(key.publicKey)).toBe(true);
    expect(parseSolanaPublicKey('')).toBeUndefined();
    expect(() => parseSolanaPublicKey(base58Encode(key.secretKey))).toThrow(/32-byte/);
    expect(() => parseSolanaPublicKey('not-base58-0OIl')).toThrow(/not base58/);
    expect(() => parseSolanaPublicKey(base58Encode(key.publicKey.toBytes().slice(1)))).toThrow(/32-byte/);
  });
});

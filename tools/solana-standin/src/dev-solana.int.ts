import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, PublicKey } from '@solana/web3.js';
import { ROOT } from '@xchain/stack';
import { associatedTokenAccount, vaultTokenAccount } from '@xchain/svm-orders';
import {
  DEV_SOLANA_FEE_PAYER_SEED,
  DEV_SOLANA_FILLER_SEED,
  DEV_SOLANA_VAULT_SEED,
  devKeypair,
  startDevSolana,
  startLocalSolana,
} from './index';

describe('the stand-in as npm start runs it', () => {
  it("places the registry's Solana tokens, funds the dev vault, fee payer, filler and wallet, and hands the services its URL and keys", async () => {
    const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8'));
    // The dev registry names the local vault and fee payer (the committed one names the operator's).
    const feePayer = devKeypair(DEV_SOLANA_FEE_PAYER_SEED);
    const chain = { deposit_target: devKeypair(DEV_SOLANA_VAULT_SEED).publicKey.toBase58(), fee_payer: feePayer.publicKey.toBase58() };
    const usdc = registry.tokens.find((t: any) => t.chain === 'solana' && t.symbol === 'USDC');
    const dev = await startDevSolana({ port: 0 });
    try {
      const conn = new Connection(dev.standin.url, 'processed');
      expect(dev.serviceEnv).toEqual({
        SOLANA_RPC_URL: dev.standin.url,
        SOLANA_FILLER_ACCOUNTS: devKeypair(DEV_SOLANA_FILLER_SEED).publicKey.toBase58(),
        SOLANA_FEE_PAYER_KEY: JSON.stringify([...feePayer.secretKey]),
        SOLANA_FILLER_KEY: JSON.stringify([...devKeypair(DEV_SOLANA_FILLER_SEED).secretKey]),
        SOLANA_VAULT_KEY: JSON.stringify([...devKeypair(DEV_SOLANA_VAULT_SEED).secretKey]),
        SOLANA_TREASURY: devKeypair(DEV_SOLANA_FILLER_SEED).publicKey.toBase58(),
        DEV_SOLANA_VAULT: chain.deposit_target,
        DEV_SOLANA_FEE_PAYER: chain.fee_payer,
      });
      for (const wallet of [chain.deposit_target, chain.fee_payer, dev.filler.toBase58(), dev.user.toBase58()]) {
        expect([wallet, await conn.getBalance(new PublicKey(wallet))]).toEqual([wallet, 1000 * 10 ** 9]);
      }
      expect((await conn.getTokenAccountBalance(vaultTokenAccount(chain.deposit_target, usdc.address))).value).toMatchObject({
        amount: '0',
        decimals: usdc.decimals,
      });
      expect((await conn.getTokenAccountBalance(associatedTokenAccount(dev.filler, usdc.address))).value.amount).toBe(
        String(1_000_000n * 10n ** BigInt(usdc.decimals)),
      );
      // The treasury is the filler (D20): claims pay into the token accounts fills are paid from.
      expect(dev.treasury.toBase58()).toBe(dev.filler.toBase58());
    } finally {
      await dev.stop();
    }
    // A cluster of one's own: no stand-in.
    expect(await startLocalSolana({ SOLANA_RPC_URL: 'http://127.0.0.1:1' }, () => undefined)).toBeUndefined();
    await expect(startLocalSolana({ SOLANA_STANDIN_PORT: 'x' }, () => undefined)).rejects.toThrow(/SOLANA_STANDIN_PORT=x/);
  });
});

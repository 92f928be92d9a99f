import { join } from 'node:path';
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { type DevSolana, startDevSolana } from '@xchain/solana-standin';
import { ROOT, type UntilOptions, untilHolds } from '@xchain/stack';
import type { SvmTransactionJson } from '@xchain/contracts';
import {
  associatedTokenAccount,
  depositInstructions,
  memoInstruction,
  memoText,
  readOrderSteps,
  transferCheckedInstruction,
  vaultTokenAccount,
} from '@xchain/svm-orders';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient } from '../support/gasless-client';
import { crossChainOf } from '../support/http';
import { T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, SETTLEMENT_ENV, SettlementFixture } from '../support/settlement-fixture';
import { devSolanaRegistry } from '../support/solana-registry';

jest.setTimeout(180_000);

const SOL_USDC = T.solana.USDC;

/**
 * Stray Solana deposits (D16): a deposit into the vault that matches no retained quote is sent back
 * to its sender by the vault, once, through the relayer; a deposit that matches is filled as before.
 * Local arbitrum (anvil) and the Solana stand-in with the dev keys, as in settlement-solana.
 */
describe('stray Solana deposits are returned to their sender', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let sol: DevSolana;
  let conn: Connection;
  let vault: PublicKey;
  const registryFile = join(ROOT, '.test-data', `registry-settlement-solana-returns-${process.pid}.json`);

  const splBalance = async (owner: PublicKey): Promise<bigint> => {
    const info = await conn.getAccountInfo(associatedTokenAccount(owner, new PublicKey(SOL_USDC)), 'confirmed');
    return info ? info.data.readBigUInt64LE(64) : 0n;
  };
  const lamports = async (owner: PublicKey): Promise<bigint> => BigInt(await conn.getBalance(owner, 'confirmed'));

  const POLL: UntilOptions = { timeoutMs: 60_000, everyMs: 200 };

  /** Sends `instructions` signed by `user` and waits for them to be confirmed; returns the signature and the fee the user paid. */
  async function sendConfirmed(user: Keypair, instructions: TransactionInstruction[]): Promise<{ signature: string; fee: bigint }> {
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: user.publicKey, recentBlockhash: blockhash }).add(...instructions);
    tx.sign(user);
    const signature = await conn.sendRawTransaction(tx.serialize());
    const landed = await untilHolds(
      `${signature} confirmed`,
      () => conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }),
      (t) => t !== null,
      POLL,
    );
    expect(landed!.meta!.err).toBeNull();
    return { signature, fee: BigInt(landed!.meta!.fee) };
  }

  /** getTransaction in encoding json, as the quote-engine's watcher reads it. */
  const rawTransaction = async (signature: string): Promise<SvmTransactionJson> => {
    const res = await fetch(sol.standin.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [signature, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }],
      }),
    });
    return ((await res.json()) as { result: SvmTransactionJson }).result;
  };

  const report = async () => {
    const r = await e2e.admin('settlement');
    if (r.code !== 0) throw new Error(`partner-admin settlement: ${r.err}`);
    return r.out.stray_deposits as { open: number; returned: number; stuck: number; stuck_list: unknown[] };
  };

  /** A Solana user with SOL for fees and `usdc` of USDC. */
  const newUser = (usdc = 0n) => {
    const user = Keypair.generate();
    sol.standin.airdrop(user.publicKey, 10n ** 9n);
    if (usdc > 0n) sol.standin.mintTo(user.publicKey, SOL_USDC, usdc);
    return user;
  };

  /** A quote from Solana USDC to arbitrum USDC for `user`. */
  const quoteFromSolana = async (user: Keypair, amount: bigint) =>
    crossChainOf(
      await s.retryingInventory(() =>
        g.api.getQuote({
          src_chain: 'solana',
          dst_chain: 'arbitrum',
          src_token: SOL_USDC,
          dst_token: ARB_USDC,
          trade_type: 'TRADE_TYPE_EXACT_INPUT',
          amount: amount.toString(),
          gas_drop: '',
          recipient: g.newUser().address,
          refund_address: user.publicKey.toBase58(),
        }),
      ),
    );

  beforeAll(async () => {
    sol = await startDevSolana({ slotMs: 100 });
    conn = new Connection(sol.standin.url, 'confirmed');
    vault = new PublicKey(sol.serviceEnv['DEV_SOLANA_VAULT']!);
    // The registry names the stand-in's dev vault and fee payer, as `npm start` seeds it.
    devSolanaRegistry(sol, registryFile);
    e2e = await startE2eStack(
      { ...SETTLEMENT_ENV, ...sol.serviceEnv, SOLANA_WATCH_POLL_MS: '100', SOLANA_POLL_MS: '100' },
      { devnet: { chains: ['arbitrum'] }, registryFile },
    );
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
    s = new SettlementFixture(e2e, g);
    await s.setUp();
    await s.setInventory(PLENTY);
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
    await sol?.stop();
  });

  it('fills a deposit that matches its quote, and returns nothing for it (its deposit goes to the treasury instead)', async () => {
    const user = newUser(25_000_000n);
    const treasury = await splBalance(sol.treasury);
    const q = await quoteFromSolana(user, 25_000_000n);
    await sendConfirmed(user, depositInstructions({ order: q.order, owner: user.publicKey, mintDecimals: 6 }));
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
    expect(view.status).toBe('fulfilled');
    expect(await splBalance(user.publicKey)).toBe(0n);
    // Claimed (D15), so the vault holds still from here on.
    await untilHolds(
      'the deposit claimed',
      () => splBalance(sol.treasury),
      (b) => b === treasury + 25_000_000n,
      POLL,
    );
    expect(await report()).toEqual({ open: 0, returned: 0, stuck: 0, stuck_list: [] });
  });

  it('returns a deposit of the wrong amount and one naming no quote to their senders exactly once; the vault is unchanged', async () => {
    // USDC, one unit short of the quote's amount_in.
    const shortUser = newUser(40_000_000n);
    const q = await quoteFromSolana(shortUser, 40_000_000n);
    const [, memo] = depositInstructions({ order: q.order, owner: shortUser.publicKey, mintDecimals: 6 });
    const mint = new PublicKey(SOL_USDC);
    const short = transferCheckedInstruction({
      source: associatedTokenAccount(shortUser.publicKey, mint),
      mint,
      destination: vaultTokenAccount(vault, mint),
      authority: shortUser.publicKey,
      amount: 39_999_999n,
      decimals: 6,
    });
    // SOL, with a deposit memo naming a quote that was never made.
    const strayUser = newUser();
    const unknown = `0x${Buffer.from(Keypair.generate().publicKey.toBytes()).toString('hex')}`;
    const [vaultUsdc, vaultSol, shortSol, straySol] = [
      await splBalance(vault),
      await lamports(vault),
      await lamports(shortUser.publicKey),
      await lamports(strayUser.publicKey),
    ];

    const shortDeposit = await sendConfirmed(shortUser, [short, memo!]);
    const strayDeposit = await sendConfirmed(strayUser, [
      SystemProgram.transfer({ fromPubkey: strayUser.publicKey, toPubkey: vault, lamports: 50_000_000 }),
      memoInstruction(memoText('deposit', unknown)),
    ]);

    const done = await untilHolds('both stray deposits settled', report, (r) => r.returned + r.stuck === 2, POLL);
    expect(done).toEqual({ open: 0, returned: 2, stuck: 0, stuck_list: [] });
    // Each sender holds what it had, less only the fee of its own deposit; the vault holds what it held.
    expect(await splBalance(shortUser.publicKey)).toBe(40_000_000n);
    expect(await lamports(shortUser.publicKey)).toBe(shortSol - shortDeposit.fee);
    expect(await lamports(strayUser.publicKey)).toBe(straySol - strayDeposit.fee);
    expect(await splBalance(vault)).toBe(vaultUsdc);
    expect(await lamports(vault)).toBe(vaultSol);
    // Once: besides its funding (airdrop, mint: no memo) each sender's history is its deposit and one return.
    for (const [user, deposit] of [
      [shortUser, shortDeposit],
      [strayUser, strayDeposit],
    ] as const) {
      const history = await conn.getSignaturesForAddress(user.publicKey, { limit: 10 }, 'confirmed');
      const others = history.filter((h) => h.signature !== deposit.signature && h.memo !== null);
      expect(others).toHaveLength(1);
      // As the watcher reads it: no order step, one return naming the deposit, paid by the vault.
      const back = readOrderSteps(await rawTransaction(others[0]!.signature));
      expect(back.steps).toEqual([]);
      expect(back.returns).toEqual([
        expect.objectContaining({
          depositSignature: deposit.signature,
          transfers: [expect.objectContaining({ authority: vault.toBase58() })],
        }),
      ]);
    }
    // The order whose deposit was short stays unpaid and unrefunded: nothing of it reached settlement.
    expect((await g.order(q.quote_hash)).body.status).toBe('quoted');
  });
});

import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { type DevSolana, startDevSolana } from '@xchain/solana-standin';
import { ROOT, type UntilOptions, untilHolds } from '@xchain/stack';
import { associatedTokenAccount, claimBatchKey, depositInstructions } from '@xchain/svm-orders';
import type { E2eStack } from '../support/e2e-stack';
import type { GaslessClient } from '../support/gasless-client';
import { crossChainOf } from '../support/http';
import { T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';
import { devSolanaRegistry } from '../support/solana-registry';

jest.setTimeout(240_000);

const SOL_USDC = T.solana.USDC;
const POLL: UntilOptions = { timeoutMs: 90_000, everyMs: 100 };

/**
 * kill -9 of the relayer or the quote-engine while a Solana claim (D15) is in flight: signed,
 * stored and sent by the relayer, run by the stand-in but not yet confirmed (its slots held). After
 * the restart the claim lands once: the treasury gains each deposit exactly once, the relayer holds
 * one claim transaction for the batch, and the report counts the deposits as claimed, none open.
 */
describe('Solana claims survive kill -9', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let sol: DevSolana;
  let conn: Connection;
  let vault: PublicKey;
  const registryFile = join(ROOT, '.test-data', `registry-settlement-solana-crash-${process.pid}.json`);

  const splBalance = async (owner: PublicKey): Promise<bigint> => {
    const info = await conn.getAccountInfo(associatedTokenAccount(owner, new PublicKey(SOL_USDC)), 'processed');
    return info ? info.data.readBigUInt64LE(64) : 0n;
  };

  const query = <R extends object>(db: string, sql: string, params: unknown[] = []) => e2e.query<R>(db, sql, params);

  /** The stand-in opens no slot while held: what is sent runs, but nothing becomes `confirmed`. */
  const hold = () => jest.spyOn(sol.standin.ledger, 'advance').mockImplementation(() => undefined);

  beforeAll(async () => {
    sol = await startDevSolana({ slotMs: 100 });
    conn = new Connection(sol.standin.url, 'confirmed');
    vault = new PublicKey(sol.serviceEnv['DEV_SOLANA_VAULT']!);
    // The registry names the stand-in's dev vault and fee payer, as `npm start` seeds it.
    devSolanaRegistry(sol, registryFile);
    ({ e2e, g, s } = await startSettlementStack(
      { ...sol.serviceEnv, SOLANA_WATCH_POLL_MS: '100', SOLANA_POLL_MS: '100' },
      { devnet: { chains: ['arbitrum'] }, registryFile },
    ));
  }, 240_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await e2e?.stop();
    await sol?.stop();
  });

  /** A Solana user quotes `amount` of USDC to arbitrum USDC and deposits it into the vault. */
  const depositFromSolana = async (amount: bigint) => {
    const user = Keypair.generate();
    sol.standin.airdrop(user.publicKey, 10n ** 9n);
    sol.standin.mintTo(user.publicKey, SOL_USDC, amount);
    const q = crossChainOf(
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
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: user.publicKey, recentBlockhash: blockhash }).add(
      ...depositInstructions({ order: q.order, owner: user.publicKey, mintDecimals: 6 }),
    );
    tx.sign(user);
    await conn.sendRawTransaction(tx.serialize());
    return q;
  };

  for (const victim of ['gasless-relayer', 'quote-engine'] as const) {
    it(`kill -9 of the ${victim} with a Solana claim in flight: after the restart it lands once, each deposit claimed once`, async () => {
      await s.setInventory(PLENTY);
      const [vaultBefore, treasuryBefore] = [await splBalance(vault), await splBalance(sol.treasury)];
      const orders = [await depositFromSolana(7_000_000n), await depositFromSolana(8_000_000n)];
      // Deposits read at depth; from here the stand-in is held, so the claim, once sent, cannot be confirmed.
      for (const q of orders) await g.waitOrder(q.quote_hash, (v) => v.status !== 'quoted', 60_000);
      const hashes = orders.map((q) => q.quote_hash);
      const held = hold();
      let keys: string[];
      try {
        for (const q of orders) expect((await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled', 60_000)).status).toBe('fulfilled');
        // Both deposits batched (one batch, or two if their fills were confirmed a batching apart), each batch's claim
        // signed, stored and sent by the relayer: it ran on the stand-in, which confirms nothing while held.
        const batched = await untilHolds(
          'both deposits batched',
          () =>
            query<{ claim: string; claim_batch: string }>(
              'quote_engine',
              'SELECT claim, claim_batch FROM settlements WHERE quote_hash = ANY($1)',
              [hashes],
            ),
          (rows) => rows.length === 2 && rows.every((r) => r.claim === 'batched'),
          POLL,
        );
        keys = [...new Set(batched.map((r) => r.claim_batch))];
        await untilHolds(
          'the claims in flight',
          () =>
            query<{ status: string }>(
              'gasless_relayer',
              'SELECT l.status FROM claim_txs c JOIN lane_txs l ON l.id = c.lane_tx_id WHERE c.batch_key = ANY($1)',
              [keys],
            ),
          (rows) => rows.length === keys.length && rows.every((r) => r.status === 'submitted'),
          POLL,
        );
        const still = await query<{ claim: string }>('quote_engine', 'SELECT claim FROM settlements WHERE quote_hash = ANY($1)', [hashes]);
        expect(still.map((r) => r.claim)).toEqual(['batched', 'batched']); // not known to be claimed yet
        const proc = e2e.stack.services.get(victim)!;
        const exited = new Promise((r) => proc.child.once('exit', r));
        proc.child.kill('SIGKILL');
        await exited;
      } finally {
        held.mockRestore();
      }
      await e2e.stack.restart(victim);

      // Both deposits claimed, once: the quote-engine's rows, one relayer transaction per batch, the chain.
      await untilHolds(
        'the deposits claimed',
        () => query<{ claim: string }>('quote_engine', 'SELECT claim FROM settlements WHERE quote_hash = ANY($1)', [hashes]),
        (rows) => rows.length === 2 && rows.every((r) => r.claim === 'claimed'),
        POLL,
      );
      const claims = await query<{ order_hash: string; status: string }>(
        'gasless_relayer',
        "SELECT c.batch_key AS order_hash, l.status FROM claim_txs c JOIN lane_txs l ON l.id = c.lane_tx_id WHERE l.vm = 'svm' AND c.batch_key = ANY($1) ORDER BY c.batch_key",
        [keys!],
      );
      expect(claims).toEqual([...keys!].sort().map((k) => ({ order_hash: k, status: 'confirmed' })));
      expect(keys!.every((k) => k === claimBatchKey(hashes) || hashes.some((h) => k === claimBatchKey([h])))).toBe(true);
      expect(await splBalance(sol.treasury)).toBe(treasuryBefore + 15_000_000n);
      expect(await splBalance(vault)).toBe(vaultBefore);
      await s.reportUntil((r) => {
        const row = r.reconciliation.find((x: { chain: string }) => x.chain === 'solana');
        return row?.open === '0' && r.claims.due + r.claims.batched + r.claims.stuck === 0;
      }, 'nothing open on Solana');
    });
  }
});

import { Connection, Keypair, type PublicKey } from '@solana/web3.js';
import { Code, type OperatorTxView, RpcError, type SendOperatorTxRequest, type SvmTransactionJson } from '@xchain/contracts';
import { type PrismaClient, createGaslessRelayerDb } from '@xchain/gasless-relayer-db';
import { type Order, ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { SystemClock } from '@xchain/service-kit';
import { type SolanaStandin, startSolanaStandin } from '@xchain/solana-standin';
import { freshMigratedDatabase, until, type UntilOptions } from '@xchain/stack';
import { associatedTokenAccount, claimBatchKey, readOrderSteps } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { RelayChains } from '../chain/relay-chains';
import type { StatusEvents } from '../relay/status-events';
import { LaneTxRepository } from '../store/lane-tx.repository';
import { type OperatorTxTables, operatorTxTablesOver } from '../store/operator-tx.repository';
import type { Lanes } from '../relay/lanes';
import { SolanaRpc } from '../svm/solana-rpc';
import { SvmRelay } from '../svm/svm-relay';
import { OperatorTxs } from './operator-txs';
import { SOLANA_CHAIN_ID } from './svm-operator-tx';
import { SvmOperatorTxs } from './svm-operator-txs';
import { SvmResigner } from './svm-resigner';

jest.setTimeout(60_000);

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL_TOKEN = '11111111111111111111111111111111';
const SOL = 10n ** 9n;
/** The stand-in's blockhash lifetime (a validator's): opening one slot more expires every blockhash signed so far. */
const TTL_SLOTS = 150;

const POLL: UntilOptions = { timeoutMs: 20_000, failOnError: true };

/**
 * Solana operator transactions (D15) against the litesvm stand-in and PostgreSQL: SendOperatorTx
 * builds, signs and stores a fill or a refund, the Solana relay sends and follows it, and the
 * chain shows exactly the money moved, once.
 */
describe('Solana operator transactions on the stand-in and PostgreSQL', () => {
  let standin: SolanaStandin;
  let conn: Connection;
  let db: PrismaClient;
  let orders: LaneTxRepository;
  let tables: OperatorTxTables;
  let rpc: SolanaRpc;
  let relay: SvmRelay;
  let ops: OperatorTxs;
  const publish = jest.fn();
  const filler = Keypair.generate();
  const vault = Keypair.generate();
  const treasury = Keypair.generate().publicKey;

  /** An operator surface over the same database and chain; `wake` sends at once, as in the service. */
  const operatorTxs = (keys: { filler?: Keypair; vault?: Keypair; treasury?: PublicKey }, wake: (key: string) => void) => {
    const svm = new SvmOperatorTxs(tables, rpc, keys, { wake }, silent);
    return {
      resigner: new SvmResigner(orders, rpc, keys),
      ops: new OperatorTxs({ byName: () => undefined } as unknown as RelayChains, tables, {} as Lanes, silent, svm),
    };
  };
  const newRelay = (resigner: SvmResigner) =>
    new SvmRelay(orders, rpc, { publish } as unknown as StatusEvents, { finished: async () => undefined }, 100, silent, resigner);

  const lamports = async (who: PublicKey) => BigInt(await conn.getBalance(who, 'confirmed'));
  const tokens = async (owner: PublicKey) => {
    const info = await conn.getAccountInfo(associatedTokenAccount(owner, USDC), 'confirmed');
    return info ? info.data.readBigUInt64LE(64) : 0n;
  };
  /** Every transaction that touched `who`, as the watcher would find it. */
  const signaturesOf = async (who: PublicKey) => (await conn.getSignaturesForAddress(who, undefined, 'confirmed')).map((s) => s.signature);
  /** What the quote-engine's Solana watcher reads from a landed transaction. */
  const stepsOf = async (signature: string) => {
    const res = await fetch(standin.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getTransaction',
        params: [signature, { encoding: 'json', commitment: 'confirmed' }],
      }),
    });
    return readOrderSteps(((await res.json()) as { result: SvmTransactionJson }).result);
  };
  const settled = (send: () => Promise<OperatorTxView>) =>
    until(
      'the operator transaction to settle',
      async () => {
        const v = await send();
        return v.status === 'confirmed' || v.status === 'failed' ? v : undefined;
      },
      POLL,
    );

  function order(over: Partial<Order>) {
    const o = sampleOrder({ salt: `0x${Buffer.from(Keypair.generate().publicKey.toBytes()).toString('hex')}`, ...over });
    return { wire: orderToWire(o, []), quoteHash: hashOrder(o), order: o };
  }

  beforeAll(async () => {
    standin = await startSolanaStandin({ slotMs: 100, blockhashTtlSlots: TTL_SLOTS });
    conn = new Connection(standin.url, 'confirmed');
    db = createGaslessRelayerDb(await freshMigratedDatabase('gasless-relayer', 'relayer_svm_operator'), 4);
    orders = new LaneTxRepository(db, new SystemClock());
    tables = operatorTxTablesOver(db);
    rpc = new SolanaRpc(standin.url, 5000);
    for (const k of [filler, vault]) standin.airdrop(k.publicKey, 10n * SOL);
    standin.createMint({ address: USDC, decimals: 6 });
    standin.mintTo(filler.publicKey, USDC, 1_000n * 10n ** 6n);
    standin.mintTo(vault.publicKey, USDC, 50n * 10n ** 6n);
    const live = operatorTxs({ filler, vault, treasury }, (key) => relay.wake(key));
    ops = live.ops;
    relay = newRelay(live.resigner);
    relay.start();
  }, 60_000);

  afterAll(async () => {
    await relay?.stop();
    await db?.$disconnect();
    await standin?.stop();
  });

  it('fills an SPL order to a recipient without a token account: it gets amount_out and the gas drop to the unit, once; asking again sends nothing', async () => {
    const recipient = Keypair.generate().publicKey;
    const fill = order({
      dstChainId: SOLANA_CHAIN_ID,
      dstToken: toBytes32('svm', USDC),
      recipient: toBytes32('svm', recipient.toBase58()),
      amountOut: 12_345_678n,
      minAmountOut: 12_000_000n,
      gasDrop: 2_000_000n,
    });
    const req: SendOperatorTxRequest = {
      kind: 'fill',
      quote_hash: fill.quoteHash,
      chain: 'solana',
      call: { vm: 'svm', order: fill.wire, amount: '12345678', mint_decimals: 6 },
    };
    const [fillerUsdc, fillerFills] = [await tokens(filler.publicKey), (await signaturesOf(filler.publicKey)).length];

    const first = await ops.send(req);
    expect(first).toMatchObject({ kind: 'fill', quote_hash: fill.quoteHash, chain: 'solana', wallet: filler.publicKey.toBase58() });
    const done = await settled(() => ops.send(req));
    expect(done).toMatchObject({ status: 'confirmed', tx_hashes: [done.tx_hash] });
    expect(await tokens(recipient)).toBe(12_345_678n);
    expect(await lamports(recipient)).toBe(2_000_000n);
    expect(await tokens(filler.publicKey)).toBe(fillerUsdc - 12_345_678n);
    expect((await stepsOf(done.tx_hash!)).steps).toEqual([expect.objectContaining({ kind: 'fill', quoteHash: fill.quoteHash })]);

    // Asking again, even with other terms, answers the stored row; a whole relay pass later nothing else was sent.
    await expect(ops.send({ ...req, call: { ...req.call, amount: '12000000' } as SendOperatorTxRequest['call'] })).resolves.toEqual(done);
    await relay.pass();
    const sent = await signaturesOf(filler.publicKey); // newest first
    expect([sent[0], sent.length]).toEqual([done.tx_hash, fillerFills + 1]);
    expect(await tokens(recipient)).toBe(12_345_678n);
    expect(publish).not.toHaveBeenCalled(); // no gasless event for an operator transaction
  });

  it('refunds an SPL deposit from the vault: refund_address gets amount_in, the vault loses exactly that, the filler pays the fee', async () => {
    const user = Keypair.generate().publicKey;
    const refund = order({
      srcChainId: SOLANA_CHAIN_ID,
      srcToken: toBytes32('svm', USDC),
      amountIn: 7_654_321n,
      refundAddress: toBytes32('svm', user.toBase58()),
      depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    });
    const req: SendOperatorTxRequest = {
      kind: 'refund',
      quote_hash: refund.quoteHash,
      chain: 'solana',
      call: { vm: 'svm', order: refund.wire, mint_decimals: 6 },
    };
    const [vaultUsdc, vaultSol] = [await tokens(vault.publicKey), await lamports(vault.publicKey)];

    const done = await settled(() => ops.send(req));
    expect(done).toMatchObject({ status: 'confirmed', wallet: filler.publicKey.toBase58(), tx_hashes: [done.tx_hash] });
    expect(await tokens(user)).toBe(7_654_321n);
    expect(await tokens(vault.publicKey)).toBe(vaultUsdc - 7_654_321n);
    expect(await lamports(vault.publicKey)).toBe(vaultSol);
    expect((await stepsOf(done.tx_hash!)).steps.map((s) => [s.kind, s.transfers.map((t) => [t.authority, t.amount])])).toEqual([
      ['refund', [[vault.publicKey.toBase58(), 7_654_321n]]],
    ]);
  });

  it('claims a batch of filled SPL deposits: the vault pays their sum to the treasury’s new account, once per batch key', async () => {
    const deposited = (amountIn: bigint) =>
      order({
        srcChainId: SOLANA_CHAIN_ID,
        srcToken: toBytes32('svm', USDC),
        amountIn,
        depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
      });
    const batch = [deposited(4_000_000n), deposited(2_500_000n)];
    const key = claimBatchKey(batch.map((b) => b.quoteHash));
    const req: SendOperatorTxRequest = {
      kind: 'claim',
      quote_hash: key,
      chain: 'solana',
      call: { vm: 'svm', claim: { orders: batch.map((b) => b.wire), mint_decimals: 6 } },
    };
    const vaultUsdc = await tokens(vault.publicKey);
    expect(await tokens(treasury)).toBe(0n);

    const done = await settled(() => ops.send(req));
    expect(done).toMatchObject({ kind: 'claim', quote_hash: key, status: 'confirmed', wallet: filler.publicKey.toBase58() });
    expect(await tokens(treasury)).toBe(6_500_000n);
    expect(await tokens(vault.publicKey)).toBe(vaultUsdc - 6_500_000n);
    const read = await stepsOf(done.tx_hash!);
    expect([read.steps, read.refused, read.claims.map((c) => c.batchKey)]).toEqual([[], [], [key]]);

    // Asked again (a retry, a restart, another replica): the stored row answers; a relay pass later nothing moved again.
    await expect(ops.send(req)).resolves.toEqual(done);
    await relay.pass();
    expect(await tokens(treasury)).toBe(6_500_000n);
    expect((await signaturesOf(treasury)).length).toBe(1);
  });

  it('refuses a claim whose key is not its orders’ and answers NO_OPERATOR_WALLET without a treasury, storing nothing', async () => {
    const filled = order({
      srcChainId: SOLANA_CHAIN_ID,
      srcToken: ZERO_BYTES32,
      depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    });
    const call = { vm: 'svm' as const, claim: { orders: [filled.wire] } };
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (err: unknown) => (err instanceof RpcError ? err.status.code : String(err)),
      );
    const wrong = `0x${'ab'.repeat(32)}`;
    expect(await codeOf(ops.send({ kind: 'claim', quote_hash: wrong, chain: 'solana', call }))).toBe(Code.INVALID_ARGUMENT);
    const key = claimBatchKey([filled.quoteHash]);
    const noTreasury = operatorTxs({ filler, vault }, () => undefined).ops;
    expect(await codeOf(noTreasury.send({ kind: 'claim', quote_hash: key, chain: 'solana', call }))).toBe(Code.FAILED_PRECONDITION);
    expect(await codeOf(ops.send({ kind: 'claim', quote_hash: key, chain: 'solana', call: { vm: 'svm', order: filled.wire } }))).toBe(
      Code.INVALID_ARGUMENT,
    );
    expect(await tables.of('claim').find(wrong)).toBeNull();
    expect(await tables.of('claim').find(key)).toBeNull();
    expect(await db.laneTx.count({ where: { kind: 'claim', id: { in: [`claim-${wrong}`, `claim-${key}`] } } })).toBe(0);
  });

  it('reads the filler account: SOL for the System program id, a mint through its token account, 0 without one', async () => {
    expect(await ops.balance('solana', SOL_TOKEN)).toEqual({
      wallet: filler.publicKey.toBase58(),
      balance: await lamports(filler.publicKey),
    });
    expect(await ops.balance('solana', USDC)).toEqual({ wallet: filler.publicKey.toBase58(), balance: await tokens(filler.publicKey) });
    expect((await ops.balance('solana', Keypair.generate().publicKey.toBase58())).balance).toBe(0n);
  });

  it('answers NO_OPERATOR_WALLET without the filler key, and for refunds without the vault key', async () => {
    const refund = order({
      srcChainId: SOLANA_CHAIN_ID,
      srcToken: ZERO_BYTES32,
      depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    });
    const call = { vm: 'svm' as const, order: refund.wire };
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (err: unknown) => (err instanceof RpcError ? err.status.code : String(err)),
      );
    const none = operatorTxs({}, () => undefined).ops;
    expect(await codeOf(none.send({ kind: 'refund', quote_hash: refund.quoteHash, chain: 'solana', call }))).toBe(Code.FAILED_PRECONDITION);
    expect(await codeOf(none.balance('solana', SOL_TOKEN))).toBe(Code.FAILED_PRECONDITION);
    const fillerOnly = operatorTxs({ filler }, () => undefined).ops;
    expect(await codeOf(fillerOnly.send({ kind: 'refund', quote_hash: refund.quoteHash, chain: 'solana', call }))).toBe(
      Code.FAILED_PRECONDITION,
    );
    expect(await codeOf(fillerOnly.send({ kind: 'cancel', quote_hash: refund.quoteHash, chain: 'solana', call }))).toBe(
      Code.INVALID_ARGUMENT,
    );
    expect(await tables.of('refund').find(refund.quoteHash)).toBeNull();
  });

  it('fails a fill that landed with an error (the filler lacks the tokens), with its signature and reason', async () => {
    const recipient = Keypair.generate().publicKey;
    const fill = order({
      dstChainId: SOLANA_CHAIN_ID,
      dstToken: toBytes32('svm', USDC),
      recipient: toBytes32('svm', recipient.toBase58()),
      amountOut: 10n ** 15n,
      minAmountOut: 10n ** 15n,
    });
    const req: SendOperatorTxRequest = {
      kind: 'fill',
      quote_hash: fill.quoteHash,
      chain: 'solana',
      call: { vm: 'svm', order: fill.wire, mint_decimals: 6 },
    };
    const done = await settled(() => ops.send(req));
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(new RegExp(`^TX_REVERTED: ${done.tx_hash} failed in slot \\d+: `));
    expect(await tokens(recipient)).toBe(0n);
  });

  it('signs a refund again when its blockhash expired unseen (queued, then sent and lost), once for two passes at a time; it lands once', async () => {
    await relay.stop(); // nothing sends behind the test's back until it says so
    const user = Keypair.generate().publicKey;
    const refund = order({
      srcChainId: SOLANA_CHAIN_ID,
      srcToken: ZERO_BYTES32,
      amountIn: 3n * SOL,
      refundAddress: toBytes32('svm', user.toBase58()),
      depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    });
    const req: SendOperatorTxRequest = {
      kind: 'refund',
      quote_hash: refund.quoteHash,
      chain: 'solana',
      call: { vm: 'svm', order: refund.wire },
    };
    const key = tables.of('refund').laneId(refund.quoteHash);
    const quiet = operatorTxs({ filler, vault }, () => undefined); // stores, never wakes a relay
    const vaultSol = await lamports(vault.publicKey);

    // Stored but never sent, and its blockhash expires: signed again, still unsent (nothing to list).
    expect(await quiet.ops.send(req)).toMatchObject({ status: 'queued', tx_hashes: [] });
    const unsent = (await orders.find(key))!.svmSignature!;
    standin.advance(TTL_SLOTS + 1);
    await newRelay(quiet.resigner).pass();
    const row1 = (await orders.find(key))!;
    expect(row1).toMatchObject({ status: 'queued', svmExpiredSigs: [] });
    expect(row1.svmSignature).not.toBe(unsent);
    // A pass that read the row before that (the old signature) can no longer re-sign it.
    expect(await orders.resignSvm(key, 'queued', unsent, { txBase64: row1.svmTx!, signature: 'stale' })).toBe(false);

    // Marked sent as the relay does before sending, but the send is lost; once expired, two passes at once sign it again once.
    expect(await orders.markSvmSubmitted(key, row1.svmSignature!)).toBe(true);
    expect(await quiet.ops.send(req)).toMatchObject({ status: 'submitted', tx_hashes: [row1.svmSignature] });
    standin.advance(TTL_SLOTS + 1);
    await Promise.all([newRelay(quiet.resigner).pass(), newRelay(quiet.resigner).pass()]);
    const row2 = (await orders.find(key))!;
    expect(row2.svmExpiredSigs).toEqual([row1.svmSignature]); // (the other pass may have sent the new one already)
    expect(row2.svmSignature).not.toBe(row1.svmSignature);

    // Now the relay runs: the new transaction lands, once; the vault moved amount_in exactly once.
    relay = newRelay(quiet.resigner);
    relay.start();
    const done = await settled(() => ops.send(req));
    expect(done).toMatchObject({ status: 'confirmed', tx_hash: row2.svmSignature, tx_hashes: [row1.svmSignature, row2.svmSignature] });
    expect(await lamports(user)).toBe(3n * SOL);
    expect(await lamports(vault.publicKey)).toBe(vaultSol - 3n * SOL);
    const statuses = (await conn.getSignatureStatuses([unsent, row1.svmSignature!, row2.svmSignature!], { searchTransactionHistory: true }))
      .value;
    expect(statuses.map((s) => s?.confirmationStatus ?? null)).toEqual([null, null, expect.stringMatching(/^(confirmed|finalized)$/)]);
    expect((await signaturesOf(user)).length).toBe(1);
  });
});

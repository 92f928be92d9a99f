import { Keypair, type PublicKey, Transaction, type TransactionInstruction, TransactionMessage } from '@solana/web3.js';
import { Code, RpcError } from '@xchain/contracts';
import { type Order, ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import {
  SVM_PROGRAMS,
  associatedTokenAccount,
  claimBatchKey,
  claimMemoText,
  memoText,
  readOrderSteps,
  returnMemoText,
  strayReturnKey,
} from '@xchain/svm-orders';
import { decodeTransaction, storedTxFacts } from '../svm/svm-transaction';
import { SOLANA_CHAIN_ID, planSvmClaimTx, planSvmOperatorTx, planSvmReturnTx, resignSvmTx, signSvmPlan } from './svm-operator-tx';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const filler = Keypair.generate();
const vault = Keypair.generate();
const recipient = Keypair.generate().publicKey;
const user = Keypair.generate().publicKey;
const blockhash = Keypair.generate().publicKey.toBase58();
const keys = { filler, vault };

/** A Solana → Solana order (the side not on Solana does not matter to the builder). SOL where a token is undefined. */
function solanaOrder(over: { src?: string; dst?: string; gasDrop?: bigint } & Partial<Order> = {}) {
  const { src, dst, gasDrop, ...rest } = over;
  const order = sampleOrder({
    srcChainId: SOLANA_CHAIN_ID,
    dstChainId: SOLANA_CHAIN_ID,
    srcToken: src ? toBytes32('svm', src) : ZERO_BYTES32,
    dstToken: dst ? toBytes32('svm', dst) : ZERO_BYTES32,
    amountIn: 2_500_000n,
    amountOut: 1_234_567n,
    minAmountOut: 1_200_000n,
    recipient: toBytes32('svm', recipient.toBase58()),
    refundAddress: toBytes32('svm', user.toBase58()),
    depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    gasDrop: gasDrop ?? 0n,
    ...rest,
  });
  return { wire: orderToWire(order, []), quoteHash: hashOrder(order) };
}

/** An instruction as a reader would say it: what it does, to whom, how much. */
function said(ix: TransactionInstruction): unknown[] {
  const k = (i: number) => ix.keys[i]!.pubkey.toBase58();
  if (ix.programId.equals(SVM_PROGRAMS.system)) return ['transfer', k(0), k(1), ix.data.readBigUInt64LE(4)];
  if (ix.programId.equals(SVM_PROGRAMS.token)) return ['transferChecked', k(0), k(1), k(2), k(3), ix.data.readBigUInt64LE(1), ix.data[9]];
  if (ix.programId.equals(SVM_PROGRAMS.associatedToken)) return ['createIdempotent', k(0), k(1), k(2), k(3), ix.data[0]];
  if (ix.programId.equals(SVM_PROGRAMS.memo)) return ['memo', ix.data.toString('utf8')];
  return ['other', ix.programId.toBase58()];
}

/** The signed transaction read back from its bytes: its instructions, its signers, whether every signature verifies. */
function readBack(txBase64: string) {
  const decoded = decodeTransaction(txBase64);
  const message = decoded.message;
  const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
  return {
    instructions: TransactionMessage.decompile(message).instructions.map(said),
    signers,
    blockhash: message.recentBlockhash,
    verified: Transaction.from(Buffer.from(txBase64, 'base64')).verifySignatures(true),
  };
}

/** What the quote-engine's watcher would read from this transaction had it landed: its steps and their transfers. */
function steps(txBase64: string) {
  const message = decodeTransaction(txBase64).message;
  return readOrderSteps({
    slot: 1,
    meta: { err: null },
    transaction: {
      signatures: [storedTxFacts(txBase64).signature],
      message: {
        accountKeys: message.accountKeys.map((key) => key.toBase58()),
        instructions: message.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data })),
      },
    },
  });
}

const ata = (owner: PublicKey, mint: string) => associatedTokenAccount(owner, mint).toBase58();
const F = filler.publicKey.toBase58();
const V = vault.publicKey.toBase58();
const R = recipient.toBase58();
const U = user.toBase58();

/** The stable reason code an RpcError carries (its ErrorInfo). */
const reasonOf = (err: RpcError) => err.status.details.flatMap((d) => ('reason' in d ? [d.reason] : []))[0];

function rpcError(fn: () => unknown): RpcError {
  try {
    fn();
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected an RpcError');
}

describe('Solana operator fills', () => {
  it('an SPL fill opens the recipient account, pays amount_out from the filler to the unit, then the memo; signed by the filler alone, which pays the fee', () => {
    const { wire, quoteHash } = solanaOrder({ dst: USDC });
    const signed = signSvmPlan(planSvmOperatorTx({ kind: 'fill', quoteHash, order: wire, mintDecimals: 6 }, keys), blockhash);
    const tx = readBack(signed.txBase64);
    expect(tx.instructions).toEqual([
      ['createIdempotent', F, ata(recipient, USDC), R, USDC, 1],
      ['transferChecked', ata(filler.publicKey, USDC), USDC, ata(recipient, USDC), F, 1_234_567n, 6],
      ['memo', memoText('fill', quoteHash)],
    ]);
    expect(tx.signers).toEqual([F]);
    expect(tx.verified).toBe(true);
    expect(tx.blockhash).toBe(blockhash);
    expect(signed.signature).toBe(storedTxFacts(signed.txBase64).signature);
    // The watcher reads one fill of exactly that amount, signed by the filler (the account creation is allowed before it).
    expect(steps(signed.txBase64)).toEqual({
      steps: [
        {
          kind: 'fill',
          quoteHash,
          index: 2,
          transfers: [{ mint: USDC, from: ata(filler.publicKey, USDC), to: ata(recipient, USDC), authority: F, amount: 1_234_567n }],
        },
      ],
      refused: [],
      returns: [],
      claims: [],
    });
  });

  it('a SOL fill with a gas drop pays the amount and then the gas drop in lamports, with no account to open', () => {
    const { wire, quoteHash } = solanaOrder({ gasDrop: 5_000n });
    const tx = readBack(
      signSvmPlan(planSvmOperatorTx({ kind: 'fill', quoteHash, order: wire, amount: 1_200_001n }, keys), blockhash).txBase64,
    );
    expect(tx.instructions).toEqual([
      ['transfer', F, R, 1_200_001n],
      ['transfer', F, R, 5_000n],
      ['memo', memoText('fill', quoteHash)],
    ]);
    expect(tx.signers).toEqual([F]);
  });

  it('refuses a fill below min_amount_out, an SPL fill without decimals, an order that is not the quote, and an order delivering elsewhere', () => {
    const { wire, quoteHash } = solanaOrder({ dst: USDC });
    const below = rpcError(() => planSvmOperatorTx({ kind: 'fill', quoteHash, order: wire, amount: 1_199_999n, mintDecimals: 6 }, keys));
    expect([below.status.code, below.message]).toEqual([Code.INVALID_ARGUMENT, 'call: a fill of 1199999 is below min_amount_out 1200000']);
    expect(rpcError(() => planSvmOperatorTx({ kind: 'fill', quoteHash, order: wire }, keys)).message).toMatch(/mintDecimals is required/);
    const other = `0x${'cd'.repeat(32)}`;
    expect(rpcError(() => planSvmOperatorTx({ kind: 'fill', quoteHash: other, order: wire, mintDecimals: 6 }, keys)).message).toBe(
      `call.order: hashes to ${quoteHash}, not the quote_hash ${other}`,
    );
    const evm = solanaOrder({ dst: USDC, dstChainId: 8453n });
    expect(
      rpcError(() => planSvmOperatorTx({ kind: 'fill', quoteHash: evm.quoteHash, order: evm.wire, mintDecimals: 6 }, keys)).message,
    ).toBe('call.order: delivers on chain 8453, not on Solana');
  });
});

describe('Solana operator refunds', () => {
  it('an SPL refund returns amount_in from the vault account to refund_address (opened first); the filler pays the fee and the vault co-signs', () => {
    const { wire, quoteHash } = solanaOrder({ src: USDC });
    const signed = signSvmPlan(planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire, mintDecimals: 6 }, keys), blockhash);
    const tx = readBack(signed.txBase64);
    expect(tx.instructions).toEqual([
      ['createIdempotent', F, ata(user, USDC), U, USDC, 1],
      ['transferChecked', ata(vault.publicKey, USDC), USDC, ata(user, USDC), V, 2_500_000n, 6],
      ['memo', memoText('refund', quoteHash)],
    ]);
    expect(tx.signers).toEqual([F, V]);
    expect(tx.verified).toBe(true);
    expect(steps(signed.txBase64).steps.map((s) => [s.kind, s.transfers.map((t) => [t.authority, t.amount])])).toEqual([
      ['refund', [[V, 2_500_000n]]],
    ]);
  });

  it('a SOL refund is one System transfer of amount_in from the vault, then the memo', () => {
    const { wire, quoteHash } = solanaOrder();
    const tx = readBack(
      signSvmPlan(planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire, amount: 2_500_000n }, keys), blockhash).txBase64,
    );
    expect(tx.instructions).toEqual([
      ['transfer', V, U, 2_500_000n],
      ['memo', memoText('refund', quoteHash)],
    ]);
    expect(tx.signers).toEqual([F, V]);
  });

  it('answers NO_OPERATOR_WALLET without the vault key or for another vault, and refuses an amount other than amount_in', () => {
    const { wire, quoteHash } = solanaOrder();
    const noVault = rpcError(() => planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire }, { filler }));
    expect([noVault.status.code, reasonOf(noVault)]).toEqual([Code.FAILED_PRECONDITION, 'NO_OPERATOR_WALLET']);
    const other = rpcError(() => planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire }, { filler, vault: Keypair.generate() }));
    expect([other.status.code, reasonOf(other)]).toEqual([Code.FAILED_PRECONDITION, 'NO_OPERATOR_WALLET']);
    expect(rpcError(() => planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire, amount: 2_499_999n }, keys)).message).toBe(
      'call.amount: a refund returns amount_in 2500000, not 2499999',
    );
  });
});

it('a cancel is not a Solana operator transaction, and a claim is not built from one order (planSvmClaimTx builds it)', () => {
  const { wire, quoteHash } = solanaOrder();
  for (const kind of ['cancel', 'claim'])
    expect(rpcError(() => planSvmOperatorTx({ kind, quoteHash, order: wire }, keys)).status.code).toBe(Code.INVALID_ARGUMENT);
});

describe('resignSvmTx', () => {
  it('signs the same instructions over a new blockhash with every signer: a new signature, the same accounts', () => {
    const { wire, quoteHash } = solanaOrder({ src: USDC });
    const first = signSvmPlan(planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire, mintDecimals: 6 }, keys), blockhash);
    const next = Keypair.generate().publicKey.toBase58();
    const again = resignSvmTx(first.txBase64, next, [vault, filler]);
    const [a, b] = [readBack(first.txBase64), readBack(again.txBase64)];
    expect(b.blockhash).toBe(next);
    expect(b.instructions).toEqual(a.instructions);
    expect(b.signers).toEqual(a.signers);
    expect(b.verified).toBe(true);
    expect(again.signature).not.toBe(first.signature);
    expect(again.signature).toBe(storedTxFacts(again.txBase64).signature);
  });

  it('refuses when a signer of the stored transaction has no key here', () => {
    const { wire, quoteHash } = solanaOrder();
    const first = signSvmPlan(planSvmOperatorTx({ kind: 'refund', quoteHash, order: wire }, keys), blockhash);
    expect(() => resignSvmTx(first.txBase64, Keypair.generate().publicKey.toBase58(), [filler])).toThrow(
      `no key for the signer ${V} of the stored transaction`,
    );
  });
});

describe('Solana returns of stray deposits', () => {
  const deposit = '3'.repeat(87);
  const key = strayReturnKey('solana', deposit, 1);

  it('an SPL return opens the sender account, moves exactly the amount from the vault, then the return memo; vault co-signs, the filler pays', () => {
    const signed = signSvmPlan(
      planSvmReturnTx(
        { quoteHash: key, depositSignature: deposit, depositIndex: 1, to: U, mint: USDC, amount: 7_654_321n, mintDecimals: 6 },
        keys,
      ),
      blockhash,
    );
    const tx = readBack(signed.txBase64);
    expect(tx.instructions).toEqual([
      ['createIdempotent', F, ata(user, USDC), U, USDC, 1],
      ['transferChecked', ata(vault.publicKey, USDC), USDC, ata(user, USDC), V, 7_654_321n, 6],
      ['memo', returnMemoText(deposit)],
    ]);
    expect(tx.signers).toEqual([F, V]);
    expect(tx.verified).toBe(true);
    // The watcher reads no order step from it: a return, apart.
    const read = steps(signed.txBase64);
    expect(read.steps).toEqual([]);
    expect(read.refused).toEqual([]);
    expect(read.returns).toEqual([
      { index: 2, depositSignature: deposit, transfers: [expect.objectContaining({ mint: USDC, authority: V, amount: 7_654_321n })] },
    ]);
  });

  it('a SOL return is one transfer from the vault and the memo; refused when the key is not the deposit’s, or without the vault key', () => {
    const tx = readBack(
      signSvmPlan(
        planSvmReturnTx({ quoteHash: key, depositSignature: deposit, depositIndex: 1, to: U, mint: 'SOL', amount: 5n }, keys),
        blockhash,
      ).txBase64,
    );
    expect(tx.instructions).toEqual([
      ['transfer', V, U, 5n],
      ['memo', returnMemoText(deposit)],
    ]);
    const other = strayReturnKey('solana', deposit, 2);
    expect(
      rpcError(() =>
        planSvmReturnTx({ quoteHash: other, depositSignature: deposit, depositIndex: 1, to: U, mint: 'SOL', amount: 5n }, keys),
      ).message,
    ).toMatch(/is keyed 0x[0-9a-f]{64}, not/);
    expect(
      reasonOf(
        rpcError(() =>
          planSvmReturnTx({ quoteHash: key, depositSignature: deposit, depositIndex: 1, to: U, mint: 'SOL', amount: 5n }, { filler }),
        ),
      ),
    ).toBe('NO_OPERATOR_WALLET');
    expect(
      rpcError(() => planSvmReturnTx({ quoteHash: key, depositSignature: deposit, depositIndex: 1, to: V, mint: 'SOL', amount: 5n }, keys))
        .message,
    ).toMatch(/the vault itself/);
  });
});

describe('Solana claims of filled orders’ deposits', () => {
  const treasury = Keypair.generate().publicKey;
  const T = treasury.toBase58();
  const withTreasury = { ...keys, treasury };
  const batch = (...orders: ReturnType<typeof solanaOrder>[]) => ({
    batchKey: claimBatchKey(orders.map((o) => o.quoteHash)),
    orders: orders.map((o) => o.wire),
  });

  it('an SPL claim pays the sum of amount_in from the vault to the treasury’s account (opened first), then the claim memo; the vault co-signs, the filler pays', () => {
    const a = solanaOrder({ src: USDC });
    const b = solanaOrder({ src: USDC, amountIn: 442_500_000n, salt: `0x${'77'.repeat(32)}` });
    const args = batch(a, b);
    const signed = signSvmPlan(planSvmClaimTx({ ...args, mintDecimals: 6 }, withTreasury), blockhash);
    const tx = readBack(signed.txBase64);
    expect(tx.instructions).toEqual([
      ['createIdempotent', F, ata(treasury, USDC), T, USDC, 1],
      ['transferChecked', ata(vault.publicKey, USDC), USDC, ata(treasury, USDC), V, 445_000_000n, 6],
      ['memo', claimMemoText(args.batchKey)],
    ]);
    expect(tx.signers).toEqual([F, V]);
    expect(tx.verified).toBe(true);
    // The watcher reads no order step from it: a claim, apart.
    const read = steps(signed.txBase64);
    expect([read.steps, read.refused, read.returns]).toEqual([[], [], []]);
    expect(read.claims).toEqual([
      { index: 2, batchKey: args.batchKey, transfers: [expect.objectContaining({ mint: USDC, authority: V, amount: 445_000_000n })] },
    ]);
    // The same orders in another order are the same batch.
    expect(planSvmClaimTx({ batchKey: args.batchKey, orders: [b.wire, a.wire], mintDecimals: 6 }, withTreasury).instructions).toHaveLength(
      3,
    );
  });

  it('a SOL claim is one System transfer from the vault to the treasury, then the memo', () => {
    const args = batch(solanaOrder());
    const tx = readBack(signSvmPlan(planSvmClaimTx(args, withTreasury), blockhash).txBase64);
    expect(tx.instructions).toEqual([
      ['transfer', V, T, 2_500_000n],
      ['memo', claimMemoText(args.batchKey)],
    ]);
  });

  it('refuses a key that is not the orders’, two tokens in one batch, an order twice, and an order deposited elsewhere than Solana', () => {
    const a = solanaOrder({ src: USDC });
    const sol = solanaOrder();
    const wrongKey = rpcError(() =>
      planSvmClaimTx({ batchKey: claimBatchKey([sol.quoteHash]), orders: [a.wire], mintDecimals: 6 }, withTreasury),
    );
    expect([wrongKey.status.code, wrongKey.message]).toEqual([
      Code.INVALID_ARGUMENT,
      `quote_hash: the claim of these orders is keyed ${claimBatchKey([a.quoteHash])}, not ${claimBatchKey([sol.quoteHash])}`,
    ]);
    expect(rpcError(() => planSvmClaimTx({ ...batch(a, sol), mintDecimals: 6 }, withTreasury)).message).toMatch(/a claim moves one token/);
    expect(
      rpcError(() => planSvmClaimTx({ batchKey: claimBatchKey([a.quoteHash]), orders: [a.wire, a.wire], mintDecimals: 6 }, withTreasury))
        .status.code,
    ).toBe(Code.INVALID_ARGUMENT);
    const fromBase = solanaOrder({ src: USDC, srcChainId: 8453n });
    expect(rpcError(() => planSvmClaimTx({ ...batch(fromBase), mintDecimals: 6 }, withTreasury)).message).toBe(
      'call.claim.orders[0]: was deposited on chain 8453, not on Solana',
    );
  });

  it('answers NO_OPERATOR_WALLET without a treasury, without the vault key, or for orders deposited to another vault', () => {
    const args = batch(solanaOrder());
    for (const k of [keys, { filler, treasury }, { filler, vault: Keypair.generate(), treasury }]) {
      const err = rpcError(() => planSvmClaimTx(args, k));
      expect([err.status.code, reasonOf(err)]).toEqual([Code.FAILED_PRECONDITION, 'NO_OPERATOR_WALLET']);
    }
    expect(rpcError(() => planSvmClaimTx(args, keys)).message).toMatch(/SOLANA_TREASURY/);
  });
});

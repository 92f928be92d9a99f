import { ComputeBudgetProgram, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import type { SvmTransactionJson } from '@xchain/contracts';
import { ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { concat, keccak256, toBytes } from 'viem';
import {
  SOL,
  SVM_PROGRAMS,
  associatedTokenAccount,
  claimBatchKey,
  claimInstructions,
  claimMemoText,
  createAssociatedTokenAccountInstruction,
  depositInstructions,
  fillInstructions,
  memoInstruction,
  memoText,
  parseClaimMemo,
  parseMemoText,
  parseReturnMemo,
  parseSvmKeyList,
  parseOrderSteps,
  returnInstructions,
  returnMemoText,
  solTransferInstruction,
  strayReturnKey,
  readOrderSteps,
  refundInstructions,
  vaultTokenAccount,
} from './index';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const vault = Keypair.generate().publicKey;
const user = Keypair.generate().publicKey;
const filler = Keypair.generate().publicKey;
const recipient = Keypair.generate().publicKey;

/** An order from Solana (source token `src`, SOL when undefined) to Solana (destination `dst`). */
function solanaOrder(src?: string, dst: string = USDC, gasDrop = 0n) {
  const order = sampleOrder({
    srcChainId: 792703809n,
    srcToken: src ? toBytes32('svm', src) : ZERO_BYTES32,
    dstToken: toBytes32('svm', dst),
    recipient: toBytes32('svm', recipient.toBase58()),
    refundAddress: toBytes32('svm', user.toBase58()),
    depositTarget: toBytes32('svm', vault.toBase58()),
    gasDrop,
  });
  return { order, wire: orderToWire(order, []), quoteHash: hashOrder(order) };
}

/** What getTransaction (encoding json) answers for a transaction of these instructions. */
function confirmed(instructions: TransactionInstruction[], feePayer: PublicKey, err: unknown = null): SvmTransactionJson {
  const message = new Transaction({ feePayer, recentBlockhash: Keypair.generate().publicKey.toBase58() })
    .add(...instructions)
    .compileMessage();
  return {
    slot: 42,
    blockTime: 1_795_000_000,
    meta: { err },
    transaction: {
      signatures: ['5'.repeat(88)],
      message: {
        accountKeys: message.accountKeys.map((k) => k.toBase58()),
        instructions: message.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data })),
      },
    },
  };
}

describe('memoText', () => {
  it('names the step and the quote hash in lowercase, and refuses anything else', () => {
    const hash = `0x${'AB'.repeat(32)}`;
    expect(memoText('deposit', hash)).toBe(`xchain:v1:deposit:0x${'ab'.repeat(32)}`);
    expect(() => memoText('deposit', '0x1234')).toThrow(/not a quote hash/);
    expect(() => memoText('withdraw' as never, hash)).toThrow(/not an order step/);
  });
});

describe('return memo', () => {
  const signature = '4'.repeat(88);

  it('names the returned deposit by its signature, reads back, and is no quote step', () => {
    expect(returnMemoText(signature)).toBe(`xchain:v1:return:${signature}`);
    expect(parseReturnMemo(returnMemoText(signature))).toEqual({ depositSignature: signature });
    expect(parseMemoText(returnMemoText(signature))).toBeUndefined();
    expect(() => returnMemoText('0x1234')).toThrow(/not a base58 transaction signature/);
    // Not exactly one: a trailing part, a 0 (not base58), a quote hash in place of a signature.
    expect(parseReturnMemo(`xchain:v1:return:${signature}:1`)).toBeUndefined();
    expect(parseReturnMemo(`xchain:v1:return:0${signature.slice(1)}`)).toBeUndefined();
    expect(parseReturnMemo(`xchain:v1:return:0x${'ab'.repeat(32)}`)).toBeUndefined();
  });

  it('a return is listed apart with its transfers; a malformed one is refused like any malformed memo of ours', () => {
    const vaultKey = Keypair.generate();
    const back = solTransferInstruction(vaultKey.publicKey, user, 1234n);
    const read = readOrderSteps(confirmed([back, memoInstruction(returnMemoText(signature))], filler));
    expect(read).toEqual({
      steps: [],
      refused: [],
      returns: [
        {
          index: 1,
          depositSignature: signature,
          transfers: [
            {
              mint: SOL,
              from: vaultKey.publicKey.toBase58(),
              to: user.toBase58(),
              authority: vaultKey.publicKey.toBase58(),
              amount: 1234n,
            },
          ],
        },
      ],
      claims: [],
    });
    const bad = readOrderSteps(confirmed([back, memoInstruction('xchain:v1:return:nope')], filler));
    expect(bad).toEqual({ steps: [], refused: [{ index: 1, reason: expect.stringMatching(/malformed memo/) }], returns: [], claims: [] });
  });

  it('keys a return by chain, signature and index: 32 bytes, different for each', () => {
    const a = strayReturnKey('solana', signature, 1);
    expect(a).toMatch(/^0x[0-9a-f]{64}$/);
    // keccak256("solana:<88 fours>:1") as computed by viem, an implementation of its own.
    expect(a).toBe(keccak256(toBytes(`solana:${signature}:1`)));
    expect(
      new Set([
        a,
        strayReturnKey('solana', signature, 2),
        strayReturnKey('solana', '5'.repeat(88), 1),
        strayReturnKey('devnet', signature, 1),
      ]).size,
    ).toBe(4);
  });

  it('builds a return as exactly the amount from the vault, then the memo, and refuses nothing to return', () => {
    const vaultKey = Keypair.generate().publicKey;
    const ixs = returnInstructions({ vault: vaultKey, to: user, mint: USDC, amount: 42n, mintDecimals: 6, depositSignature: signature });
    expect(ixs.map((i) => i.programId.toBase58())).toEqual([SVM_PROGRAMS.token.toBase58(), SVM_PROGRAMS.memo.toBase58()]);
    expect([...ixs[0]!.data]).toEqual([12, ...u64le(42n), 6]);
    expect(ixs[0]!.keys.map((k) => k.pubkey.toBase58())).toEqual([
      vaultTokenAccount(vaultKey, USDC).toBase58(),
      USDC,
      associatedTokenAccount(user, USDC).toBase58(),
      vaultKey.toBase58(),
    ]);
    expect(() => returnInstructions({ vault: vaultKey, to: user, mint: SOL, amount: 0n, depositSignature: signature })).toThrow(
      /positive amount/,
    );
  });
});

describe('claim memo and claim', () => {
  const key = `0x${'cd'.repeat(32)}`;

  it('names the claim batch by its key, reads back, and is neither a quote step nor a return', () => {
    expect(claimMemoText(key)).toBe(`xchain:v1:claim:${key}`);
    expect(parseClaimMemo(claimMemoText(key))).toEqual({ batchKey: key });
    expect(parseMemoText(claimMemoText(key))).toBeUndefined();
    expect(parseReturnMemo(claimMemoText(key))).toBeUndefined();
    expect(() => claimMemoText(`0x${'CD'.repeat(32)}`)).toThrow(/not a claim batch key/);
    expect(parseClaimMemo(`xchain:v1:claim:${key}:1`)).toBeUndefined();
    expect(parseClaimMemo(`xchain:v1:claim:0x${'CD'.repeat(32)}`)).toBeUndefined();
  });

  it('keys a batch by its quote hashes in any order: keccak256 of their sorted bytes, and refuses an empty or doubled batch', () => {
    const [a, b] = [solanaOrder().quoteHash, solanaOrder(USDC).quoteHash] as `0x${string}`[];
    const [lo, hi] = [a!, b!].sort();
    expect(claimBatchKey([a!, b!])).toBe(keccak256(concat([lo!, hi!])));
    expect(claimBatchKey([b!, a!])).toBe(claimBatchKey([a!, b!]));
    expect(claimBatchKey([a!])).toBe(keccak256(a!));
    expect(() => claimBatchKey([])).toThrow(/at least one/);
    expect(() => claimBatchKey([a!, a!])).toThrow(/twice/);
    expect(() => claimBatchKey(['0x12'])).toThrow(/not a quote hash/);
  });

  it('builds a claim as the whole amount from the vault to the treasury’s account, then the memo; the watcher lists it apart', () => {
    const vaultKey = Keypair.generate().publicKey;
    const treasury = Keypair.generate().publicKey;
    const ixs = claimInstructions({ vault: vaultKey, treasury, mint: USDC, amount: 445_000_000n, mintDecimals: 6, batchKey: key });
    expect(ixs.map((i) => i.programId.toBase58())).toEqual([SVM_PROGRAMS.token.toBase58(), SVM_PROGRAMS.memo.toBase58()]);
    expect([...ixs[0]!.data]).toEqual([12, ...u64le(445_000_000n), 6]);
    expect(ixs[0]!.keys.map((k) => k.pubkey.toBase58())).toEqual([
      vaultTokenAccount(vaultKey, USDC).toBase58(),
      USDC,
      associatedTokenAccount(treasury, USDC).toBase58(),
      vaultKey.toBase58(),
    ]);
    const read = readOrderSteps(confirmed(ixs, filler));
    expect(read).toEqual({
      steps: [],
      refused: [],
      returns: [],
      claims: [
        {
          index: 1,
          batchKey: key,
          transfers: [
            {
              mint: USDC,
              from: vaultTokenAccount(vaultKey, USDC).toBase58(),
              to: associatedTokenAccount(treasury, USDC).toBase58(),
              authority: vaultKey.toBase58(),
              amount: 445_000_000n,
            },
          ],
        },
      ],
    });
    const sol = claimInstructions({ vault: vaultKey, treasury, mint: SOL, amount: 7n, batchKey: key });
    expect(sol[0]!.programId.equals(SVM_PROGRAMS.system)).toBe(true);
    expect(() => claimInstructions({ vault: vaultKey, treasury, mint: SOL, amount: 0n, batchKey: key })).toThrow(/positive amount/);
    expect(() => claimInstructions({ vault: vaultKey, treasury: vaultKey, mint: SOL, amount: 1n, batchKey: key })).toThrow(/vault itself/);
    expect(() => claimInstructions({ vault: vaultKey, treasury, mint: USDC, amount: 1n, batchKey: key })).toThrow(/mintDecimals/);
  });
});

describe('parseSvmKeyList', () => {
  it('reads comma-separated base58 keys, drops repeats, and names a malformed one', () => {
    const a = user.toBase58();
    expect(parseSvmKeyList(` ${a}, ${filler.toBase58()},${a},`)).toEqual([a, filler.toBase58()]);
    expect(parseSvmKeyList('')).toEqual([]);
    expect(() => parseSvmKeyList(`${a},0xabc`)).toThrow(/0xabc is not a base58 Solana key/);
    expect(() => parseSvmKeyList('1111111111111111111111111111111')).toThrow(/not a base58 Solana key/); // 31 bytes
  });
});

describe('builders and parser', () => {
  it('a SOL deposit is the whole amount_in to the vault, then the memo, and reads back as one deposit', () => {
    const { wire, quoteHash, order } = solanaOrder();
    const ixs = depositInstructions({ order: wire, owner: user });
    expect(ixs.map((i) => i.programId.toBase58())).toEqual([SVM_PROGRAMS.system.toBase58(), SVM_PROGRAMS.memo.toBase58()]);
    expect(ixs[1]!.keys).toEqual([]);
    expect(parseOrderSteps(confirmed(ixs, user))).toEqual([
      {
        kind: 'deposit',
        quoteHash,
        index: 1,
        transfers: [{ mint: SOL, from: user.toBase58(), to: vault.toBase58(), authority: user.toBase58(), amount: order.amountIn }],
      },
    ]);
  });

  it("an SPL deposit is a TransferChecked into the vault's associated token account", () => {
    const { wire, quoteHash, order } = solanaOrder(USDC);
    const ixs = depositInstructions({ order: wire, owner: user, vault, mintDecimals: 6 });
    expect(ixs[0]!.programId.equals(SVM_PROGRAMS.token)).toBe(true);
    expect([...ixs[0]!.data]).toEqual([12, ...u64le(order.amountIn), 6]);
    expect(parseOrderSteps(confirmed(ixs, user))).toEqual([
      {
        kind: 'deposit',
        quoteHash,
        index: 1,
        transfers: [
          {
            mint: USDC,
            from: associatedTokenAccount(user, USDC).toBase58(),
            to: vaultTokenAccount(vault, USDC).toBase58(),
            authority: user.toBase58(),
            amount: order.amountIn,
          },
        ],
      },
    ]);
  });

  it('a fill pays the recipient the destination token and the gas drop in SOL; a refund pays refund_address from the vault', () => {
    const { wire, quoteHash, order } = solanaOrder(USDC, USDC, 5000n);
    const fill = parseOrderSteps(confirmed(fillInstructions({ order: wire, filler, mintDecimals: 6 }), filler));
    expect(fill).toEqual([
      {
        kind: 'fill',
        quoteHash,
        index: 2,
        transfers: [
          {
            mint: USDC,
            from: associatedTokenAccount(filler, USDC).toBase58(),
            to: associatedTokenAccount(recipient, USDC).toBase58(),
            authority: filler.toBase58(),
            amount: order.amountOut,
          },
          { mint: SOL, from: filler.toBase58(), to: recipient.toBase58(), authority: filler.toBase58(), amount: 5000n },
        ],
      },
    ]);
    const refund = parseOrderSteps(confirmed(refundInstructions({ order: wire, mintDecimals: 6 }), vault));
    expect(refund).toEqual([
      {
        kind: 'refund',
        quoteHash,
        index: 1,
        transfers: [
          {
            mint: USDC,
            from: vaultTokenAccount(vault, USDC).toBase58(),
            to: associatedTokenAccount(user, USDC).toBase58(),
            authority: vault.toBase58(),
            amount: order.amountIn,
          },
        ],
      },
    ]);
  });

  it('a fill may open the recipient account and set a priority fee; a deposit may not', () => {
    const { wire, quoteHash } = solanaOrder();
    const budget = ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 });
    const open = createAssociatedTokenAccountInstruction(filler, recipient, new PublicKey(USDC));
    const fill = readOrderSteps(confirmed([budget, open, ...fillInstructions({ order: wire, filler, mintDecimals: 6 })], filler));
    expect(fill).toEqual({ steps: [expect.objectContaining({ kind: 'fill', index: 3 })], refused: [], returns: [], claims: [] });
    const deposit = readOrderSteps(confirmed([budget, ...depositInstructions({ order: wire, owner: user })], user));
    expect(deposit.steps).toEqual([]);
    expect(deposit.refused).toEqual([{ index: 2, kind: 'deposit', quoteHash, reason: expect.stringMatching(/exactly one transfer/) }]);
  });

  it('a failed transaction carries no step, whatever its memo says', () => {
    const { wire } = solanaOrder();
    const ixs = depositInstructions({ order: wire, owner: user });
    expect(parseOrderSteps(confirmed(ixs, user, { InstructionError: [0, { Custom: 1 }] }))).toEqual([]);
    expect(parseOrderSteps({ ...confirmed(ixs, user), meta: null })).toEqual([]);
    expect(parseOrderSteps(null)).toEqual([]);
    expect(parseOrderSteps(confirmed(ixs, user))).toHaveLength(1); // the same transaction, succeeded
  });

  it('ignores transactions without our memo, and refuses a memo of ours that is malformed', () => {
    const { wire, quoteHash } = solanaOrder();
    const [transfer] = depositInstructions({ order: wire, owner: user });
    expect(readOrderSteps(confirmed([transfer!], user))).toEqual({ steps: [], refused: [], returns: [], claims: [] });
    expect(readOrderSteps(confirmed([transfer!, memoInstruction('thanks for the coffee')], user))).toEqual({
      steps: [],
      refused: [],
      returns: [],
      claims: [],
    });
    const upper = readOrderSteps(
      confirmed([transfer!, memoInstruction(`xchain:v1:deposit:${quoteHash.toUpperCase().replace('0X', '0x')}`)], user),
    );
    expect(upper.steps).toEqual([]);
    expect(upper.refused).toEqual([{ index: 1, reason: expect.stringMatching(/malformed memo/) }]);
    // A memo alone is no fill.
    expect(readOrderSteps(confirmed([memoInstruction(memoText('fill', quoteHash))], filler)).refused[0]!.reason).toMatch(
      /without any transfer/,
    );
  });

  it('refuses to build what the watcher would not accept', () => {
    const { wire } = solanaOrder(USDC);
    expect(() => depositInstructions({ order: wire, owner: user, vault: filler, mintDecimals: 6 })).toThrow(/deposit_target/);
    expect(() => depositInstructions({ order: wire, owner: user })).toThrow(/mintDecimals is required/);
    expect(() => fillInstructions({ order: wire, filler, amount: 1n, mintDecimals: 6 })).toThrow(/below min_amount_out/);
  });

  it("derives an owner's associated token account as spl-token does", () => {
    // A published getAssociatedTokenAddress(mint, owner) result (devnet USDC), not our own output.
    expect(
      associatedTokenAccount('5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU').toBase58(),
    ).toBe('HmBpVD6N1vuGvQpS8KrwWH6Tr8rSwXQBEDKn5VXW6yyw');
    const a = vaultTokenAccount(vault, USDC);
    expect(PublicKey.isOnCurve(a.toBytes())).toBe(false);
    expect(associatedTokenAccount(user, USDC).equals(a)).toBe(false);
  });
});

function u64le(n: bigint): number[] {
  return Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
}

import type { SvmTransactionJson } from '@xchain/contracts';
import { base58Decode } from '@xchain/order-codec';
import { SYSTEM_TRANSFER, TOKEN_TRANSFER_CHECKED, readU64 } from './instructions';
import { MEMO_PREFIX, type OrderStepKind, parseClaimMemo, parseMemoText, parseReturnMemo } from './memo';
import { SOL, type SvmMint } from './order-terms';
import { SVM_PROGRAMS } from './programs';

/** Value moved by one top-level instruction. `from`/`to` are token accounts for SPL, wallets for SOL. */
export interface SvmTransfer {
  mint: SvmMint;
  from: string;
  to: string;
  /** Who signed for the funds: the SOL sender, or the SPL source account's owner/delegate. */
  authority: string;
  amount: bigint;
}

export interface OrderStep {
  kind: OrderStepKind;
  quoteHash: string;
  /** Instruction index of the memo: with the signature, what makes the step unique. */
  index: number;
  /** The transfers between the previous xchain memo (or the start) and this memo, in order. */
  transfers: SvmTransfer[];
}

/** A memo of ours that does not stand for a step: why, so the watcher can say so. */
export interface RefusedStep {
  index: number;
  kind?: OrderStepKind;
  quoteHash?: string;
  reason: string;
}

/** The vault sending back a stray deposit (`xchain:v1:return:<signature>`): no order step, read only to be told apart. */
export interface ReturnStep {
  index: number;
  depositSignature: string;
  transfers: SvmTransfer[];
}

/** The vault paying filled orders' deposits to the treasury (`xchain:v1:claim:<batch key>`): no order step either. */
export interface ClaimStep {
  index: number;
  batchKey: string;
  transfers: SvmTransfer[];
}

type Read =
  | { type: 'transfer'; transfer: SvmTransfer }
  | { type: 'memo'; text: string | undefined }
  | { type: 'helper' } // compute budget, associated-account creation: allowed around fills and refunds
  | { type: 'other'; program: string };

const SYSTEM = SVM_PROGRAMS.system.toBase58();
const TOKEN = SVM_PROGRAMS.token.toBase58();
const MEMO = SVM_PROGRAMS.memo.toBase58();
const COMPUTE_BUDGET = SVM_PROGRAMS.computeBudget.toBase58();
const ASSOCIATED_TOKEN = SVM_PROGRAMS.associatedToken.toBase58();
const utf8 = new TextDecoder('utf-8', { fatal: true });

function readInstruction(keys: readonly string[], ix: { programIdIndex: number; accounts: number[]; data: string }): Read {
  const program = keys[ix.programIdIndex];
  const account = (i: number) => {
    const idx = ix.accounts[i];
    return idx === undefined ? undefined : keys[idx];
  };
  let data: Uint8Array;
  try {
    data = base58Decode(ix.data);
  } catch {
    return { type: 'other', program: program ?? '?' };
  }
  if (
    program === SYSTEM &&
    data.length === 12 &&
    new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true) === SYSTEM_TRANSFER
  ) {
    const [from, to] = [account(0), account(1)];
    if (from && to) return { type: 'transfer', transfer: { mint: SOL, from, to, authority: from, amount: readU64(data, 4) } };
  }
  if (program === TOKEN && data.length === 10 && data[0] === TOKEN_TRANSFER_CHECKED) {
    const [from, mint, to, authority] = [account(0), account(1), account(2), account(3)];
    if (from && mint && to && authority) return { type: 'transfer', transfer: { mint, from, to, authority, amount: readU64(data, 1) } };
  }
  if (program === MEMO) {
    try {
      return { type: 'memo', text: utf8.decode(data) };
    } catch {
      return { type: 'memo', text: undefined };
    }
  }
  if (program === COMPUTE_BUDGET) return { type: 'helper' };
  // Create (empty data or 0) and CreateIdempotent (1): a filler may open the recipient's account.
  if (program === ASSOCIATED_TOKEN && (data.length === 0 || (data.length === 1 && (data[0] === 0 || data[0] === 1))))
    return { type: 'helper' };
  return { type: 'other', program: program ?? '?' };
}

/**
 * The order steps a confirmed transaction carries, and the memos of ours it carries that are not
 * steps (with the reason). A failed transaction (`meta.err` set) or one without meta carries
 * nothing: its transfers did not happen. Rules:
 * - a deposit is a transaction of exactly two instructions: one transfer, then the deposit memo;
 * - a fill or a refund is its memo with the transfers since the previous memo of ours, among which
 *   only compute-budget and associated-token-account creation instructions may also sit;
 * - a return memo (a stray deposit sent back) and a claim memo (deposits paid to the treasury) are
 *   no steps: they are listed apart with their transfers.
 * Only top-level instructions count; what programs do inside (CPI) is not read.
 */
export function readOrderSteps(tx: SvmTransactionJson | null | undefined): {
  steps: OrderStep[];
  refused: RefusedStep[];
  returns: ReturnStep[];
  claims: ClaimStep[];
} {
  const steps: OrderStep[] = [];
  const refused: RefusedStep[] = [];
  const returns: ReturnStep[] = [];
  const claims: ClaimStep[] = [];
  if (!tx || !tx.meta || tx.meta.err !== null) return { steps, refused, returns, claims };
  const keys = [
    ...tx.transaction.message.accountKeys,
    ...(tx.meta.loadedAddresses?.writable ?? []),
    ...(tx.meta.loadedAddresses?.readonly ?? []),
  ];
  const reads = tx.transaction.message.instructions.map((ix) => readInstruction(keys, ix));
  let segmentStart = 0;
  reads.forEach((read, index) => {
    if (read.type !== 'memo' || read.text === undefined || !read.text.startsWith(MEMO_PREFIX)) return;
    const segment = reads.slice(segmentStart, index);
    segmentStart = index + 1;
    const memo = parseMemoText(read.text);
    const back = memo ? undefined : parseReturnMemo(read.text);
    if (back)
      return void returns.push({
        index,
        depositSignature: back.depositSignature,
        transfers: segment.flatMap((r) => (r.type === 'transfer' ? [r.transfer] : [])),
      });
    const claim = memo ? undefined : parseClaimMemo(read.text);
    if (claim)
      return void claims.push({
        index,
        batchKey: claim.batchKey,
        transfers: segment.flatMap((r) => (r.type === 'transfer' ? [r.transfer] : [])),
      });
    if (!memo) return void refused.push({ index, reason: `malformed memo ${JSON.stringify(read.text.slice(0, 120))}` });
    const transfers = segment.flatMap((r) => (r.type === 'transfer' ? [r.transfer] : []));
    const fail = (reason: string) => refused.push({ index, kind: memo.kind, quoteHash: memo.quoteHash, reason });
    if (memo.kind === 'deposit') {
      if (reads.length !== 2 || index !== 1 || transfers.length !== 1)
        return void fail('a deposit transaction is exactly one transfer and then the deposit memo');
    } else {
      const stray = segment.find((r) => r.type === 'other' || r.type === 'memo');
      if (stray)
        return void fail(
          `a ${memo.kind} holds an instruction that is neither a transfer nor allowed (${stray.type === 'other' ? `program ${stray.program}` : 'another memo'})`,
        );
      if (transfers.length === 0) return void fail(`a ${memo.kind} without any transfer before its memo`);
    }
    steps.push({ kind: memo.kind, quoteHash: memo.quoteHash, index, transfers });
  });
  return { steps, refused, returns, claims };
}

/** The order steps of a confirmed transaction (see `readOrderSteps`); none for a failed one. */
export function parseOrderSteps(tx: SvmTransactionJson | null | undefined): OrderStep[] {
  return readOrderSteps(tx).steps;
}

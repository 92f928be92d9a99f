import { verify } from 'node:crypto';
import type { PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import { SVM_PROGRAMS } from '@xchain/svm-orders';
import type { LiteSVM } from 'litesvm';
import { decodeMint, decodeTokenAccount, uiAmountString } from './spl-layout';

/**
 * What the stand-in keeps of a processed transaction, in the shapes `getTransaction` (encoding
 * json) and `getSignaturesForAddress` answer with: litesvm keeps no history a client could query.
 */
export interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  raw: Uint8Array;
  version: 'legacy' | 0;
  message: Record<string, unknown>;
  meta: Record<string, unknown>;
  err: unknown;
  /** `[len] text` of each memo, joined by "; " (what a validator indexes), or null. */
  memo: string | null;
  accounts: string[];
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: null; uiAmountString: string };
}

/** Lamports and token balances of a transaction's accounts at one moment (before or after it ran). */
export interface Balances {
  lamports: bigint[];
  tokens: TokenBalance[];
}

export const LAMPORTS_PER_SIGNATURE = 5000n;
const MEMO_PROGRAMS = new Set([SVM_PROGRAMS.memo.toBase58(), 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);
const TOKEN = SVM_PROGRAMS.token.toBase58();
const COMPUTE_BUDGET = SVM_PROGRAMS.computeBudget.toBase58();

export const signatureOf = (tx: VersionedTransaction): string => base58Encode(tx.signatures[0] ?? new Uint8Array(64));

/** Every required signature checked against its signer's key, as a validator's sigverify stage does. */
export function signaturesValid(tx: VersionedTransaction): boolean {
  const message = tx.message.serialize();
  const signers = tx.message.header.numRequiredSignatures;
  if (tx.signatures.length !== signers) return false;
  return tx.message.staticAccountKeys.slice(0, signers).every((key, i) => {
    const x = Buffer.from(key.toBytes()).toString('base64url');
    return verify(null, message, { key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }, tx.signatures[i]!);
  });
}

export function balancesOf(svm: LiteSVM, keys: readonly PublicKey[]): Balances {
  const tokens: TokenBalance[] = [];
  const lamports = keys.map((key, accountIndex) => {
    const account = svm.getAccount(key);
    if (account && account.owner.toBase58() === TOKEN) {
      const token = decodeTokenAccount(account.data);
      const mint = token && svm.getAccount(token.mint);
      const decimals = mint ? decodeMint(mint.data)?.decimals : undefined;
      if (token && decimals !== undefined) {
        tokens.push({
          accountIndex,
          mint: token.mint.toBase58(),
          owner: token.owner.toBase58(),
          programId: TOKEN,
          uiTokenAmount: {
            amount: token.amount.toString(),
            decimals,
            uiAmount: null,
            uiAmountString: uiAmountString(token.amount, decimals),
          },
        });
      }
    }
    return svm.getBalance(key) ?? 0n;
  });
  return { lamports, tokens };
}

// Built-in programs: since SIMD-0170 a transaction's default compute limit counts 3,000 units for
// each of their instructions and 200,000 for any other.
const BUILTINS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET,
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
]);

/**
 * The fee of a message before it runs (getFeeForMessage): 5000 lamports a signature plus the
 * priority fee, compute-unit price × limit rounded up, the limit set by the message or the default
 * (3,000 units per built-in instruction, 200,000 per other, at most 1.4M).
 */
export function feeOf(tx: { message: VersionedMessage }): bigint {
  const keys = tx.message.staticAccountKeys;
  let price = 0n;
  let limit: bigint | undefined;
  let defaultLimit = 0n;
  for (const ix of tx.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? '';
    defaultLimit += BUILTINS.has(program) ? 3_000n : 200_000n;
    if (program !== COMPUTE_BUDGET) continue;
    const d = Buffer.from(ix.data);
    if (d[0] === 2 && d.length >= 5) limit = BigInt(d.readUInt32LE(1));
    if (d[0] === 3 && d.length >= 9) price = d.readBigUInt64LE(1);
  }
  const units = limit ?? (defaultLimit > 1_400_000n ? 1_400_000n : defaultLimit);
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.message.header.numRequiredSignatures) + (price * units + 999_999n) / 1_000_000n;
}

export function messageJson(tx: VersionedTransaction): Record<string, unknown> {
  const m = tx.message;
  return {
    accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
    header: m.header,
    recentBlockhash: m.recentBlockhash,
    instructions: m.compiledInstructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: [...ix.accountKeyIndexes],
      data: base58Encode(ix.data),
      stackHeight: null,
    })),
    ...(m.version === 0 ? { addressTableLookups: [] } : {}),
  };
}

export function memosOf(tx: VersionedTransaction): string | null {
  const keys = tx.message.staticAccountKeys;
  const memos = tx.message.compiledInstructions
    .filter((ix) => MEMO_PROGRAMS.has(keys[ix.programIdIndex]?.toBase58() ?? ''))
    .map((ix) => `[${ix.data.length}] ${Buffer.from(ix.data).toString('utf8')}`);
  return memos.length ? memos.join('; ') : null;
}

interface LiteMeta {
  logs(): string[];
  computeUnitsConsumed(): bigint;
  innerInstructions(): {
    instruction(): { programIdIndex(): number; accounts(): Uint8Array; data(): Uint8Array };
    stackHeight(): number;
  }[][];
}

/** The `meta` of getTransaction: balances before and after, the fee charged, logs, inner instructions, error. */
export function metaJson(err: unknown, lite: LiteMeta, pre: Balances, post: Balances): Record<string, unknown> {
  const inner = lite
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((i) => {
        const ix = i.instruction();
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: [...ix.accounts()],
          data: base58Encode(ix.data()),
          stackHeight: i.stackHeight(),
        };
      }),
    }))
    .filter((group) => group.instructions.length > 0);
  return {
    err,
    status: err === null ? { Ok: null } : { Err: err },
    // What the run really charged: lamports only move between the transaction's own accounts, so
    // whatever the accounts lost together is the fee (exact, priority fee included).
    fee: pre.lamports.reduce((a, b) => a + b, 0n) - post.lamports.reduce((a, b) => a + b, 0n),
    preBalances: pre.lamports,
    postBalances: post.lamports,
    innerInstructions: inner,
    logMessages: lite.logs(),
    preTokenBalances: pre.tokens,
    postTokenBalances: post.tokens,
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: lite.computeUnitsConsumed(),
  };
}

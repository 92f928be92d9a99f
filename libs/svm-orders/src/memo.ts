/** What an xchain memo says a transaction is, for one order. */
export type OrderStepKind = 'deposit' | 'fill' | 'refund';

export const ORDER_STEP_KINDS: readonly OrderStepKind[] = ['deposit', 'fill', 'refund'];

/** Every memo of ours starts so; a memo that starts so but is malformed is refused, not ignored. */
export const MEMO_PREFIX = 'xchain:v1:';

const QUOTE_HASH = /^0x[0-9a-f]{64}$/;
const MEMO = /^xchain:v1:(deposit|fill|refund):(0x[0-9a-f]{64})$/;

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
const RETURN_MEMO = /^xchain:v1:return:([1-9A-HJ-NP-Za-km-z]{64,88})$/;
const CLAIM_MEMO = /^xchain:v1:claim:(0x[0-9a-f]{64})$/;

/** `xchain:v1:<kind>:<quote_hash>`, the quote hash as 0x + 64 lowercase hex. */
export function memoText(kind: OrderStepKind, quoteHash: string): string {
  if (!ORDER_STEP_KINDS.includes(kind)) throw new Error(`${String(kind)} is not an order step (deposit, fill, refund)`);
  const hash = quoteHash.toLowerCase();
  if (!QUOTE_HASH.test(hash)) throw new Error(`${quoteHash} is not a quote hash (0x and 64 hex digits)`);
  return `${MEMO_PREFIX}${kind}:${hash}`;
}

/**
 * The step a memo names, or undefined when it is not exactly one of ours. Case matters: an
 * uppercase hash is not ours, so one transaction can never be read as two different quotes.
 */
export function parseMemoText(text: string): { kind: OrderStepKind; quoteHash: string } | undefined {
  const m = MEMO.exec(text);
  return m ? { kind: m[1] as OrderStepKind, quoteHash: m[2]! } : undefined;
}

/**
 * `xchain:v1:return:<deposit signature>`: the vault sending back a deposit that matched no retained
 * quote. It names the deposit's transaction, not a quote, so it can never be read as a refund.
 */
export function returnMemoText(depositSignature: string): string {
  if (!SIGNATURE.test(depositSignature)) throw new Error(`${depositSignature} is not a base58 transaction signature`);
  return `${MEMO_PREFIX}return:${depositSignature}`;
}

/** The deposit signature a return memo names, or undefined when the text is not exactly one. */
export function parseReturnMemo(text: string): { depositSignature: string } | undefined {
  const m = RETURN_MEMO.exec(text);
  return m ? { depositSignature: m[1]! } : undefined;
}

/**
 * `xchain:v1:claim:<batch key>`: the vault paying filled orders' deposits to the treasury (D15), the
 * key being the claim batch's (`claimBatchKey` of its quote hashes). It names a batch, not a quote,
 * so it can never be read as an order step.
 */
export function claimMemoText(batchKey: string): string {
  if (!QUOTE_HASH.test(batchKey)) throw new Error(`${batchKey} is not a claim batch key (0x and 64 lowercase hex digits)`);
  return `${MEMO_PREFIX}claim:${batchKey}`;
}

/** The batch key a claim memo names, or undefined when the text is not exactly one. */
export function parseClaimMemo(text: string): { batchKey: string } | undefined {
  const m = CLAIM_MEMO.exec(text);
  return m ? { batchKey: m[1]! } : undefined;
}

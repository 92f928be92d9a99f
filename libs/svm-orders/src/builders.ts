import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import type { OrderWire } from '@xchain/order-codec';
import { memoInstruction, solTransferInstruction, transferCheckedInstruction } from './instructions';
import { claimMemoText, memoText, returnMemoText } from './memo';
import { SOL, type SvmMint, svmOrderTerms } from './order-terms';
import { type KeyLike, associatedTokenAccount, toKey } from './programs';

/**
 * One transfer of `amount` of `token` from `from` to `to` (owners; SPL moves between their
 * associated token accounts, signed by `from`).
 */
function transfer(
  token: SvmMint,
  from: PublicKey,
  to: PublicKey,
  amount: bigint,
  decimals: number | undefined,
  what: string,
): TransactionInstruction {
  if (token === SOL) return solTransferInstruction(from, to, amount);
  if (decimals === undefined) throw new Error(`${what} moves the SPL token ${token}: mintDecimals is required`);
  const mint = new PublicKey(token);
  return transferCheckedInstruction({
    source: associatedTokenAccount(from, mint),
    mint,
    destination: associatedTokenAccount(to, mint),
    authority: from,
    amount,
    decimals,
  });
}

function vaultOf(orderTarget: string, vault: KeyLike | undefined): PublicKey {
  const target = new PublicKey(orderTarget);
  if (vault !== undefined && !toKey(vault).equals(target)) {
    throw new Error(`the order's deposit_target is ${orderTarget}, not the vault ${toKey(vault).toBase58()}`);
  }
  return target;
}

export interface DepositArgs {
  /** The wire order of the quote (snake_case, bytes32 hex), referrers included. */
  order: OrderWire;
  /** The user: owner of the funds and the transfer's signer. */
  owner: KeyLike;
  /** Defaults to the order's deposit_target; when given it must be the same key. */
  vault?: KeyLike;
  /** Decimals of the source mint (SPL only; TransferChecked carries them). */
  mintDecimals?: number;
}

/**
 * A deposit is exactly two instructions: the whole `amountIn` to the vault (SOL by System
 * transfer, SPL by TransferChecked into the vault's associated token account), then the deposit
 * memo. Unlike the EVM router, nothing is kept back for a gasless relay: on Solana the vault's
 * operator carries the fee payer's cost. The watcher refuses a deposit with anything else in it.
 */
export function depositInstructions(args: DepositArgs): TransactionInstruction[] {
  const terms = svmOrderTerms(args.order);
  const vault = vaultOf(terms.depositTarget, args.vault);
  return [
    transfer(terms.srcToken, toKey(args.owner), vault, terms.amountIn, args.mintDecimals, 'the deposit'),
    memoInstruction(memoText('deposit', terms.quoteHash)),
  ];
}

export interface FillArgs {
  order: OrderWire;
  /** The filler account paying out (one of SOLANA_FILLER_ACCOUNTS), the transfers' signer. */
  filler: KeyLike;
  /** Destination-token amount to deliver; default `amount_out`; never below `min_amount_out`. */
  amount?: bigint;
  /** Decimals of the destination mint (SPL only). */
  mintDecimals?: number;
}

/**
 * A fill: the destination token to the recipient (its associated token account for SPL, which
 * must exist), then `gas_drop` lamports to the recipient when the order asks for any, then the
 * fill memo.
 */
export function fillInstructions(args: FillArgs): TransactionInstruction[] {
  const terms = svmOrderTerms(args.order);
  const amount = args.amount ?? terms.amountOut;
  if (amount < terms.minAmountOut) throw new Error(`a fill of ${amount} is below min_amount_out ${terms.minAmountOut}`);
  const filler = toKey(args.filler);
  const recipient = new PublicKey(terms.recipient);
  const out = [transfer(terms.dstToken, filler, recipient, amount, args.mintDecimals, 'the fill')];
  if (terms.gasDrop > 0n) out.push(solTransferInstruction(filler, recipient, terms.gasDrop));
  out.push(memoInstruction(memoText('fill', terms.quoteHash)));
  return out;
}

export interface RefundArgs {
  order: OrderWire;
  /** Defaults to the order's deposit_target; the vault signs the refund. */
  vault?: KeyLike;
  /** Decimals of the source mint (SPL only). */
  mintDecimals?: number;
}

/** A refund: the deposited `amountIn` from the vault back to `refund_address`, then the refund memo. */
export function refundInstructions(args: RefundArgs): TransactionInstruction[] {
  const terms = svmOrderTerms(args.order);
  const vault = vaultOf(terms.depositTarget, args.vault);
  return [
    transfer(terms.srcToken, vault, new PublicKey(terms.refundAddress), terms.amountIn, args.mintDecimals, 'the refund'),
    memoInstruction(memoText('refund', terms.quoteHash)),
  ];
}

export interface ReturnArgs {
  /** The vault that received the stray deposit; it signs the return. */
  vault: KeyLike;
  /** Who paid the deposit (its transfer's authority): the wallet paid back (its associated token account for SPL). */
  to: KeyLike;
  mint: SvmMint;
  amount: bigint;
  /** Decimals of the mint (SPL only). */
  mintDecimals?: number;
  /** The stray deposit's transaction signature, named by the memo. */
  depositSignature: string;
}

/**
 * A return of a stray deposit (one that matched no retained quote): exactly `amount` of the mint from
 * the vault back to its sender, then `xchain:v1:return:<deposit signature>`.
 */
export function returnInstructions(args: ReturnArgs): TransactionInstruction[] {
  if (args.amount <= 0n) throw new Error(`a return moves a positive amount, not ${args.amount}`);
  const memo = returnMemoText(args.depositSignature);
  return [transfer(args.mint, toKey(args.vault), toKey(args.to), args.amount, args.mintDecimals, 'the return'), memoInstruction(memo)];
}

export interface ClaimArgs {
  /** The vault holding the filled orders' deposits; it signs the claim. */
  vault: KeyLike;
  /** The treasury's owner: paid SOL itself, an SPL token to its associated token account (which must exist). */
  treasury: KeyLike;
  mint: SvmMint;
  /** The sum of the batch's deposits (each order's amount_in: a Solana vault receives all of it). */
  amount: bigint;
  /** Decimals of the mint (SPL only). */
  mintDecimals?: number;
  /** The batch's `claimBatchKey`, named by the memo. */
  batchKey: string;
}

/**
 * A claim (D15): the filled orders' deposits of one mint, `amount` in all, from the vault to the
 * treasury in one transfer, then `xchain:v1:claim:<batch key>`. It names a batch, not a quote, so it
 * is never an order step.
 */
export function claimInstructions(args: ClaimArgs): TransactionInstruction[] {
  if (args.amount <= 0n) throw new Error(`a claim moves a positive amount, not ${args.amount}`);
  const vault = toKey(args.vault);
  const treasury = toKey(args.treasury);
  if (vault.equals(treasury)) throw new Error('the treasury is the vault itself: a claim would move nothing');
  const memo = claimMemoText(args.batchKey);
  return [transfer(args.mint, vault, treasury, args.amount, args.mintDecimals, 'the claim'), memoInstruction(memo)];
}

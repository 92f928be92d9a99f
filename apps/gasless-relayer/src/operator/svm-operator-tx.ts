import { type Keypair, Message, PublicKey, type TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { Code, type OrderWire, RpcError, errorInfo } from '@xchain/contracts';
import { orderFromWire } from '@xchain/order-codec';
import {
  SOL,
  type SvmOrderTerms,
  claimBatchKey,
  claimInstructions,
  createAssociatedTokenAccountInstruction,
  fillInstructions,
  refundInstructions,
  returnInstructions,
  strayReturnKey,
  svmOrderTerms,
} from '@xchain/svm-orders';
import { decodeTransaction, storedTxFacts } from '../svm/svm-transaction';

/** The registry's chain_id of `solana`: a fill must deliver there, a refund must return deposits made there. */
export const SOLANA_CHAIN_ID = 792703809n;

/**
 * The operator's Solana accounts (D15): the filler pays fills and every fee; the vault holds
 * deposits; the treasury (a public key only) is paid the deposits of filled orders.
 */
export interface SvmOperatorKeys {
  filler: Keypair;
  vault?: Keypair;
  treasury?: PublicKey;
}

export interface SvmOperatorCallArgs {
  kind: string;
  quoteHash: string;
  order: OrderWire;
  /** A fill's amount (default amount_out); a refund's, when given, must be amount_in. */
  amount?: bigint;
  /** Decimals of the SPL mint moved; unused for SOL. */
  mintDecimals?: number;
}

/** What to sign: the instructions, the fee payer (first signer, its signature the transaction's id) and every signer. */
export interface SvmOperatorPlan {
  /** The token the transaction moves (the destination's for a fill, the source's for a refund). */
  token: string;
  instructions: TransactionInstruction[];
  feePayer: Keypair;
  signers: Keypair[];
}

export interface SignedSvmTx {
  /** The signed legacy transaction, base64: exactly the bytes that are stored and sent. */
  txBase64: string;
  /** The fee payer's signature (base58): the transaction's id. */
  signature: string;
}

/** The token a call moves, read from the order before any key is needed (its decimals are read from the chain). */
export function svmCallToken(kind: string, order: OrderWire): string {
  const terms = termsOf(order);
  return kind === 'refund' ? terms.srcToken : terms.dstToken;
}

/**
 * The transaction of a Solana operator call, as the quote-engine's Solana watcher accepts it
 * (contracts/README.md, "Solana"):
 * - fill: the filler pays the recipient (`fillInstructions`) and is the fee payer; for an SPL
 *   destination an associated-account `CreateIdempotent` comes first, so a recipient who never
 *   held the token is still paid (the filler pays its rent);
 * - refund: the vault returns amount_in (`refundInstructions`) and co-signs; the filler is the fee
 *   payer, so the vault moves exactly what was deposited and one account holds SOL for fees. An SPL
 *   refund also opens refund_address's account first: a user who closed it still gets the refund.
 */
export function planSvmOperatorTx(args: SvmOperatorCallArgs, keys: SvmOperatorKeys): SvmOperatorPlan {
  const terms = termsOf(args.order);
  if (terms.quoteHash !== args.quoteHash) invalid('call.order', `hashes to ${terms.quoteHash}, not the quote_hash ${args.quoteHash}`);
  const { order } = orderFromWire(args.order);
  const filler = keys.filler;
  const decimals = args.mintDecimals === undefined ? {} : { mintDecimals: args.mintDecimals };
  if (args.kind === 'fill') {
    if (order.dstChainId !== SOLANA_CHAIN_ID) invalid('call.order', `delivers on chain ${order.dstChainId}, not on Solana`);
    const open =
      terms.dstToken === SOL
        ? []
        : [createAssociatedTokenAccountInstruction(filler.publicKey, new PublicKey(terms.recipient), new PublicKey(terms.dstToken))];
    const pay = built(() =>
      fillInstructions({
        order: args.order,
        filler: filler.publicKey,
        ...(args.amount === undefined ? {} : { amount: args.amount }),
        ...decimals,
      }),
    );
    return { token: terms.dstToken, instructions: [...open, ...pay], feePayer: filler, signers: [filler] };
  }
  if (args.kind === 'refund') {
    if (order.srcChainId !== SOLANA_CHAIN_ID) invalid('call.order', `was deposited on chain ${order.srcChainId}, not on Solana`);
    if (args.amount !== undefined && args.amount !== terms.amountIn)
      invalid('call.amount', `a refund returns amount_in ${terms.amountIn}, not ${args.amount}`);
    const vault = keys.vault;
    if (!vault) throw noWallet('no Solana vault key (SOLANA_VAULT_KEY): refunds are not signed here');
    if (vault.publicKey.toBase58() !== terms.depositTarget)
      throw noWallet(`the order's vault ${terms.depositTarget} is not the one whose key this relayer holds`);
    const open =
      terms.srcToken === SOL
        ? []
        : [createAssociatedTokenAccountInstruction(filler.publicKey, new PublicKey(terms.refundAddress), new PublicKey(terms.srcToken))];
    const pay = built(() => refundInstructions({ order: args.order, vault: vault.publicKey, ...decimals }));
    return { token: terms.srcToken, instructions: [...open, ...pay], feePayer: filler, signers: [filler, vault] };
  }
  return invalid('kind', `a Solana operator transaction is a fill or a refund, not a ${args.kind}`);
}

/** A stray deposit to send back (kind `return`): who sent it, what, and which deposit it was. */
export interface SvmReturnArgs {
  quoteHash: string;
  depositSignature: string;
  depositIndex: number;
  to: string;
  mint: string;
  amount: bigint;
  /** Decimals of the SPL mint; unused for SOL. */
  mintDecimals?: number;
}

/**
 * The return of a stray deposit: the vault pays `amount` of the mint back to `to` and co-signs, the
 * filler pays the fee (and, for SPL, the rent of `to`'s token account, opened idempotently first),
 * then the return memo. `quoteHash` must be the deposit's `strayReturnKey`, so the (kind, key) row
 * stands for that deposit and nothing else: a deposit is returned at most once.
 */
export function planSvmReturnTx(args: SvmReturnArgs, keys: SvmOperatorKeys): SvmOperatorPlan {
  const key = strayReturnKey('solana', args.depositSignature, args.depositIndex);
  if (key !== args.quoteHash)
    invalid('quote_hash', `a return of ${args.depositSignature}:${args.depositIndex} is keyed ${key}, not ${args.quoteHash}`);
  const vault = keys.vault;
  if (!vault) throw noWallet('no Solana vault key (SOLANA_VAULT_KEY): returns are not signed here');
  let to: PublicKey;
  try {
    to = new PublicKey(args.to);
  } catch {
    return invalid('call.return.to', 'is not a base58 Solana key');
  }
  if (to.equals(vault.publicKey)) invalid('call.return.to', 'is the vault itself');
  const filler = keys.filler;
  const open = args.mint === SOL ? [] : [createAssociatedTokenAccountInstruction(filler.publicKey, to, new PublicKey(args.mint))];
  const pay = built(() =>
    returnInstructions({
      vault: vault.publicKey,
      to,
      mint: args.mint,
      amount: args.amount,
      depositSignature: args.depositSignature,
      ...(args.mintDecimals === undefined ? {} : { mintDecimals: args.mintDecimals }),
    }),
  );
  return { token: args.mint, instructions: [...open, ...pay], feePayer: filler, signers: [filler, vault] };
}

/** A claim batch (kind `claim`): its key (the request's quote_hash) and its filled orders, all deposited on Solana. */
export interface SvmClaimArgs {
  batchKey: string;
  orders: OrderWire[];
  /** Decimals of the SPL mint claimed; unused for SOL. */
  mintDecimals?: number;
}

/** The one token a claim batch moves: every order's source token, which must be the same. */
export function svmClaimToken(orders: readonly OrderWire[]): string {
  const mints = new Set(orders.map((o) => termsOf(o).srcToken));
  if (mints.size !== 1) invalid('call.claim.orders', `a claim moves one token; these orders were deposited in ${[...mints].join(', ')}`);
  return [...mints][0]!;
}

/**
 * The claim of a batch of filled orders (D15): the vault pays the sum of their amount_in (a Solana
 * vault receives all of it) to the treasury in one transfer and co-signs; the filler pays the fee
 * (and, for SPL, the rent of the treasury's token account, opened idempotently first); then the claim
 * memo. `batchKey` must be the orders' `claimBatchKey`, so the (claim, key) row stands for exactly
 * those deposits: a set of deposits is claimed by one transaction at most. Which orders are filled is
 * the quote-engine's word (its settlements, one batch per deposit at a time); the treasury is this
 * relayer's own setting.
 */
export function planSvmClaimTx(args: SvmClaimArgs, keys: SvmOperatorKeys): SvmOperatorPlan {
  const terms = args.orders.map(termsOf);
  const key = built(() => claimBatchKey(terms.map((t) => t.quoteHash)));
  if (key !== args.batchKey) invalid('quote_hash', `the claim of these orders is keyed ${key}, not ${args.batchKey}`);
  args.orders.forEach((wire, i) => {
    if (orderFromWire(wire).order.srcChainId !== SOLANA_CHAIN_ID)
      invalid(`call.claim.orders[${i}]`, `was deposited on chain ${orderFromWire(wire).order.srcChainId}, not on Solana`);
  });
  const mint = svmClaimToken(args.orders);
  const vault = keys.vault;
  if (!vault) throw noWallet('no Solana vault key (SOLANA_VAULT_KEY): claims are not signed here');
  const elsewhere = terms.find((t) => t.depositTarget !== vault.publicKey.toBase58());
  if (elsewhere)
    throw noWallet(`the order ${elsewhere.quoteHash} was deposited to ${elsewhere.depositTarget}, not to this relayer's vault`);
  const treasury = keys.treasury;
  if (!treasury) throw noWallet('no Solana treasury (SOLANA_TREASURY): claims are not sent here');
  const amount = terms.reduce((sum, t) => sum + t.amountIn, 0n);
  const filler = keys.filler;
  const open = mint === SOL ? [] : [createAssociatedTokenAccountInstruction(filler.publicKey, treasury, new PublicKey(mint))];
  const pay = built(() =>
    claimInstructions({
      vault: vault.publicKey,
      treasury,
      mint,
      amount,
      batchKey: key,
      ...(args.mintDecimals === undefined ? {} : { mintDecimals: args.mintDecimals }),
    }),
  );
  return { token: mint, instructions: [...open, ...pay], feePayer: filler, signers: [filler, vault] };
}

/** Compiles the plan over `blockhash` into a legacy transaction and signs it with every signer. */
export function signSvmPlan(plan: SvmOperatorPlan, blockhash: string): SignedSvmTx {
  const message = new TransactionMessage({
    payerKey: plan.feePayer.publicKey,
    recentBlockhash: blockhash,
    instructions: plan.instructions,
  }).compileToLegacyMessage();
  return signMessage(message, plan.signers);
}

/**
 * The same transaction over a new blockhash: the stored message with only its blockhash replaced
 * (same instructions, same accounts), signed again by each of its signers from `keys`. For a
 * transaction whose blockhash expired unseen, which can never land, so signing again cannot pay twice.
 */
export function resignSvmTx(txBase64: string, blockhash: string, keys: readonly Keypair[]): SignedSvmTx {
  const stored = decodeTransaction(txBase64).message;
  const message = new Message({
    header: stored.header,
    accountKeys: stored.accountKeys,
    recentBlockhash: blockhash,
    instructions: stored.instructions,
  });
  const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((signer) => {
    const key = keys.find((k) => k.publicKey.equals(signer));
    if (!key) throw new Error(`no key for the signer ${signer.toBase58()} of the stored transaction`);
    return key;
  });
  return signMessage(message, signers);
}

function signMessage(message: Message, signers: readonly Keypair[]): SignedSvmTx {
  const tx = new VersionedTransaction(message);
  tx.sign([...signers]);
  const txBase64 = Buffer.from(tx.serialize()).toString('base64');
  return { txBase64, signature: storedTxFacts(txBase64).signature };
}

function termsOf(order: OrderWire): SvmOrderTerms {
  return built(() => svmOrderTerms(order));
}

/** A builder's refusal (an amount below min_amount_out, a missing decimals, an unreadable order) is the caller's mistake. */
function built<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof RpcError) throw err;
    return invalid('call', err instanceof Error ? err.message : String(err));
  }
}

function invalid(field: string, description: string): never {
  throw RpcError.invalidArgument([{ field, description }]);
}

export function noWallet(message: string): RpcError {
  return new RpcError(Code.FAILED_PRECONDITION, message, [errorInfo('NO_OPERATOR_WALLET', { chain: 'solana' })]);
}

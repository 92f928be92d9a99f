import type { OrderStatus } from '@xchain/contracts';
import type { BodyOf, CallOptions, ResultOf, XchainClient } from './client';
import { XchainTimeoutError } from './errors';
import { type SolanaSigner, signSolanaTransaction } from './solana-signing';

type Hex = `0x${string}`;

/** A viem account that signs typed data itself: `privateKeyToAccount(…)`, `mnemonicToAccount(…)`, a `toAccount(…)`. */
export interface TypedDataAccount {
  readonly address: Hex;
  signTypedData(typedData: unknown): Promise<Hex>;
}

/** A viem `WalletClient` (a browser wallet through `custom(window.ethereum)`, or an account over http). */
export interface TypedDataWallet {
  readonly account?: { readonly address: Hex } | undefined;
  getAddresses(): Promise<readonly Hex[]>;
  signTypedData(args: unknown): Promise<Hex>;
}

/** Any viem account or wallet client that can sign EIP-712 typed data. */
export type EvmSigner = TypedDataAccount | TypedDataWallet;

/** An EVM signer for a quote from an EVM chain, a Solana signer for a quote from Solana. */
export type GaslessSigner = EvmSigner | SolanaSigner;

export type GetQuoteRequest = BodyOf<'GetQuote'>;
export type GaslessQuote = Extract<ResultOf<'GetQuote'>, { cross_chain: unknown }>['cross_chain'];
export type SubmitGaslessOrderBody = BodyOf<'SubmitGaslessOrder'>;
export type GaslessOrderResult = ResultOf<'SubmitGaslessOrder'>;

export interface FollowOptions {
  /** `events` (default) follows the server-sent events; `poll` reads the order every `pollIntervalMs`. */
  via?: 'events' | 'poll';
  /** How long to follow before giving up with an XchainTimeoutError (default 30 minutes). */
  timeoutMs?: number;
  /** Between two reads when polling, and before reopening a dropped stream (default 2 s). */
  pollIntervalMs?: number;
  /** Each view of the order as it changes. */
  onUpdate?: (order: OrderStatus) => void;
  signal?: AbortSignal;
}

export interface GaslessSwapOptions extends FollowOptions {
  /** Per-call settings of the quote and the submission (an API key, headers, …). */
  call?: CallOptions;
}

export interface GaslessSwapResult {
  quote: GaslessQuote;
  submitted: GaslessOrderResult;
  /**
   * The order's view in its final state (`terminal: true`): `fulfilled`, `refunded`, `expired`, or
   * `failed` (the relay failed for good before any deposit; `failure.reason` says why, D18).
   */
  order: OrderStatus;
}

const DEFAULT_FOLLOW_MS = 30 * 60_000;
const DEFAULT_POLL_MS = 2_000;

/**
 * The whole gasless flow: a gasless quote for `request`, its typed data (Permit2, and the EIP-2612
 * permit when served) or its Solana transaction signed by `signer`, submitted, and the order
 * followed until a final state.
 */
export async function gaslessSwap(
  api: XchainClient,
  request: Omit<GetQuoteRequest, 'gasless'>,
  signer: GaslessSigner,
  options: GaslessSwapOptions = {},
): Promise<GaslessSwapResult> {
  const answer = await api.getQuote({ ...request, gasless: true } as GetQuoteRequest, options.call);
  if (!('cross_chain' in answer)) throw new TypeError('a gasless swap needs a cross-chain quote; this one is a same-chain swap');
  const quote = answer.cross_chain;
  const submitted = await api.submitGaslessOrder(await signGaslessQuote(quote, signer), options.call);
  const order = await followOrder(api, quote.quote_hash, options);
  return { quote, submitted, order };
}

/** The SubmitGaslessOrder body for a gasless quote, signed by `signer` (EVM typed data or the Solana transaction). */
export async function signGaslessQuote(quote: GaslessQuote, signer: GaslessSigner): Promise<SubmitGaslessOrderBody> {
  if (quote.svm) {
    if (isEvmSigner(signer)) throw new TypeError('this quote is from Solana: sign it with a Solana signer, not an EVM one');
    return { quote_hash: quote.quote_hash, svm: { tx_base64: await signSolanaTransaction(quote.svm.tx_base64, signer) } };
  }
  const permit2 = quote.permit2;
  if (!permit2) throw new TypeError('this quote carries nothing to sign: ask GetQuote with `gasless: true`');
  if (!isEvmSigner(signer)) throw new TypeError('this quote is from an EVM chain: sign it with a viem account or wallet client');
  const owner = await addressOf(signer);
  return {
    quote_hash: quote.quote_hash,
    evm: {
      owner,
      permit2_nonce: permit2.message.nonce,
      deadline: permit2.message.deadline,
      signature: await signTypedData(signer, owner, permit2),
      ...(quote.erc2612 ? { permit_signature: await signTypedData(signer, owner, quote.erc2612) } : {}),
    },
  };
}

/**
 * Follows an order until its view is final (`terminal`: `fulfilled`, `refunded`, `expired` or
 * `failed`), through the server-sent events (a dropped stream is resumed from its last event) or
 * by polling GetOrder; returns that view. A final view that is not `fulfilled` is returned, not
 * thrown: the caller reads `status` (and `refund.reason` or `failure.reason`).
 */
export async function followOrder(api: XchainClient, quoteHash: string, options: FollowOptions = {}): Promise<OrderStatus> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FOLLOW_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const pause = () => sleep(options.pollIntervalMs ?? DEFAULT_POLL_MS, signal);
  const stop = () => {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new XchainTimeoutError('GetOrder', timeoutMs);
  };
  let lastEventId: string | undefined;
  while (!signal.aborted) {
    if ((options.via ?? 'events') === 'poll') {
      let order: OrderStatus;
      try {
        order = await api.getOrder({ quote_hash: quoteHash }, { signal });
      } catch (err) {
        if (signal.aborted) break;
        throw err;
      }
      options.onUpdate?.(order);
      if (order.terminal) return order;
    } else {
      try {
        for await (const event of api.streamOrderEvents(quoteHash, { signal, ...(lastEventId ? { lastEventId } : {}) })) {
          lastEventId = event.id ?? lastEventId;
          options.onUpdate?.(event.order);
          if (event.order.terminal) return event.order;
        }
      } catch (err) {
        if (signal.aborted) break;
        throw err;
      }
    }
    await pause();
  }
  return stop();
}

function isEvmSigner(signer: GaslessSigner): signer is EvmSigner {
  return typeof signer === 'object' && 'signTypedData' in signer && typeof signer.signTypedData === 'function';
}

function isWallet(signer: EvmSigner): signer is TypedDataWallet {
  return 'getAddresses' in signer && typeof signer.getAddresses === 'function';
}

async function addressOf(signer: EvmSigner): Promise<Hex> {
  if (!isWallet(signer)) return signer.address;
  const address = signer.account?.address ?? (await signer.getAddresses())[0];
  if (!address) throw new TypeError('the wallet client has no account: connect one first');
  return address;
}

function signTypedData(signer: EvmSigner, owner: Hex, typedData: object): Promise<Hex> {
  return isWallet(signer) ? signer.signTypedData({ account: signer.account ?? owner, ...typedData }) : signer.signTypedData(typedData);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

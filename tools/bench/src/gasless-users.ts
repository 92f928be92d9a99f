import { type Address, type Hex, type PublicClient, createPublicClient, createTestClient, encodeFunctionData, http, parseAbi } from 'viem';
import { type PrivateKeyAccount, generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/** Helpers of the gasless benchmark: local signing with counted nonces, nonce polling, prepared orders. */

const TOKEN_ABI = parseAbi(['function mint(address to, uint256 amount)', 'function transfer(address to, uint256 amount) returns (bool)']);

/** Runs `fn` over `items` with at most `concurrency` in flight; results in the items' order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

export function chainClient(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl), pollingInterval: 50 }) as PublicClient;
}

/** A fresh EOA given `ether` native units through anvil_setBalance. */
export async function freshFundedAccount(rpcUrl: string, ether: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await createTestClient({ mode: 'anvil', transport: http(rpcUrl) }).setBalance({ address: account.address, value: ether * 10n ** 18n });
  return account;
}

/**
 * Token calls from one EOA, signed here with consecutive nonces and fixed gas and fees, so sending
 * costs the node nothing but the raw transaction: what a single sender can push at best.
 */
export class RawSender {
  private constructor(
    private readonly client: PublicClient,
    readonly account: PrivateKeyAccount,
    private readonly chainId: number,
    private readonly fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    private nonce: number,
  ) {}

  static async open(client: PublicClient, account: PrivateKeyAccount): Promise<RawSender> {
    const [chainId, fees, nonce] = await Promise.all([
      client.getChainId(),
      client.estimateFeesPerGas(),
      client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    ]);
    // Under automine the base fee falls to a few wei, then rises again when one block takes a burst
    // past the gas target: a cap of 10 gwei on top keeps every signed transaction includable.
    const maxFeePerGas = fees.maxFeePerGas * 2n + 10_000_000_000n;
    return new RawSender(client, account, chainId, { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }, nonce);
  }

  get nextNonce(): number {
    return this.nonce;
  }

  /** Signs `count` calls of `token` (mint or transfer to each of `to`), consecutive nonces. */
  async signCalls(token: Address, fn: 'mint' | 'transfer', to: readonly Address[], amount: bigint): Promise<Hex[]> {
    const raws: Hex[] = [];
    for (const who of to) {
      raws.push(
        await this.account.signTransaction({
          type: 'eip1559',
          chainId: this.chainId,
          to: token,
          data: encodeFunctionData({ abi: TOKEN_ABI, functionName: fn, args: [who, amount] }),
          nonce: this.nonce++,
          gas: 150_000n,
          ...this.fees,
        }),
      );
    }
    return raws;
  }

  send(raw: Hex): Promise<Hex> {
    return this.client.sendRawTransaction({ serializedTransaction: raw });
  }
}

/** Sum of the mined nonces (`latest` transaction counts) of `wallets`, or with the node's pool (`pending`). */
export async function minedNonces(
  client: PublicClient,
  wallets: readonly Address[],
  blockTag: 'latest' | 'pending' = 'latest',
): Promise<number> {
  const counts = await Promise.all(wallets.map((address) => client.getTransactionCount({ address, blockTag })));
  return counts.reduce((a, b) => a + b, 0);
}

/** How long the mined nonces may stand still, with transactions waiting in the node, before `evm_mine`. */
const STALL_MS = 250;

/**
 * Polls every `pollMs` until the mined nonces of `wallets` reach `target`; resolves with the time
 * (hrtime ms) of the poll that saw it, or without it past `timeoutMs` or once `signal` aborts
 * (`last` is the count reached). A failed poll is tried again: it never rejects.
 *
 * Anvil's automine under CPU contention sometimes misses a wake-up and leaves ready transactions in
 * its pool until the next one arrives (reproduced with plain anvil and two busy cores). When the
 * count stands still for STALL_MS while the wallets' pending nonces are ahead, one `evm_mine` does
 * what automine skipped; the wait stays in the timing and `nudges` counts them.
 */
export async function waitForNonces(
  client: PublicClient,
  wallets: readonly Address[],
  target: number,
  pollMs: number,
  timeoutMs: number,
  signal?: AbortSignal,
  /** Called when the mined count stands still with nothing ahead in the pool: a transaction went missing (resend it). */
  onGap?: (mined: number) => Promise<void>,
): Promise<{ atMs?: number; last: number; nudges: number }> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  let nudges = 0;
  let movedAt = Date.now();
  for (;;) {
    const now = await minedNonces(client, wallets).catch(() => last);
    if (now !== last) movedAt = Date.now();
    last = now;
    if (last >= target) return { atMs: nowMs(), last, nudges };
    if (Date.now() > deadline || signal?.aborted) return { last, nudges };
    if (Date.now() - movedAt > STALL_MS) {
      const pending = await minedNonces(client, wallets, 'pending').catch(() => last);
      if (pending > last) await client.request({ method: 'evm_mine' as never, params: [] as never }).catch(() => undefined);
      else if (onGap) await onGap(last).catch(() => undefined);
      if (pending > last || onGap) {
        nudges++;
        movedAt = Date.now();
      }
    }
    await sleep(pollMs);
  }
}

export const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

/** POSTs JSON to the gateway; status, parsed body and latency (ms, send to full body). */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = nowMs();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const parsed = (await res.json()) as unknown;
    return { status: res.status, body: parsed, ms: nowMs() - t0 };
  } catch (err) {
    return { status: 0, body: { error: err instanceof Error ? err.message : String(err) }, ms: nowMs() - t0 };
  }
}

/** The parts of a gasless quote's `cross_chain` that a wallet signs and submits. */
interface GaslessQuote {
  quote_hash: string;
  permit2?: { message: { nonce: string; deadline: string } };
  erc2612?: unknown;
}

export interface PreparedOrder {
  quoteHash: string;
  body: { quote_hash: string; evm: Record<string, string> };
}

export interface PrepareOptions {
  gatewayUrl: string;
  client: PublicClient;
  /** Mints with an open `mint`; its transactions go out 32 at a time. */
  minter: PrivateKeyAccount;
  srcChain: string;
  srcToken: Address;
  dstChain: string;
  dstToken: Address;
  /** Base units of the source token each user holds and sells. */
  amount: bigint;
}

/**
 * `count` fresh users, each holding `amount` of the source token and having signed both the
 * permit2 and the erc2612 typed data of its own gasless quote: bodies ready for POST /gasless/orders.
 */
export async function prepareOrders(count: number, opts: PrepareOptions): Promise<PreparedOrder[]> {
  const users = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()));
  const sender = await RawSender.open(opts.client, opts.minter);
  const start = sender.nextNonce;
  const raws = await sender.signCalls(
    opts.srcToken,
    'mint',
    users.map((u) => u.address),
    opts.amount,
  );
  await pool(raws, 32, (raw) => sender.send(raw));
  const minted = await waitForNonces(opts.client, [opts.minter.address], start + count, 50, 120_000);
  if (minted.atMs === undefined) throw new Error(`minting stalled at ${minted.last - start} of ${count}`);
  return pool(users, 8, async (user) => {
    const q = await postJson(`${opts.gatewayUrl}/json/v1/quote`, {
      src_chain: opts.srcChain,
      dst_chain: opts.dstChain,
      src_token: opts.srcToken,
      dst_token: opts.dstToken,
      trade_type: 'TRADE_TYPE_EXACT_INPUT',
      amount: opts.amount.toString(),
      gas_drop: '',
      recipient: user.address,
      refund_address: user.address,
      gasless: true,
    });
    const quote = (q.body as { cross_chain?: GaslessQuote }).cross_chain;
    if (q.status !== 200 || !quote?.permit2 || !quote.erc2612)
      throw new Error(`gasless quote failed: ${q.status} ${JSON.stringify(q.body).slice(0, 300)}`);
    // Signed exactly as served, which is what a wallet's eth_signTypedData_v4 receives.
    const sign = (typed: unknown) =>
      user.signTypedData(JSON.parse(JSON.stringify(typed)) as Parameters<PrivateKeyAccount['signTypedData']>[0]);
    return {
      quoteHash: quote.quote_hash,
      body: {
        quote_hash: quote.quote_hash,
        evm: {
          owner: user.address,
          permit2_nonce: quote.permit2.message.nonce,
          deadline: quote.permit2.message.deadline,
          signature: await sign(quote.permit2),
          permit_signature: await sign(quote.erc2612),
        },
      },
    };
  });
}

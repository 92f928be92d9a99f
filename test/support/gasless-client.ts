import { type ApiResponse, XchainApiError, type XchainClient } from '@xchain/client';
import { ERC20_PERMIT_ABI, XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { ANVIL_DEV_KEY } from '@xchain/chain-tools';
import { untilHolds } from '@xchain/stack';
import { type Address, type Hex, type PublicClient, createPublicClient, createWalletClient, http, parseEventLogs } from 'viem';
import { type PrivateKeyAccount, generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { crossChainOf, gatewayClient } from './http';
import { T } from './registry-fixture';

type QuoteBody = Parameters<XchainClient['getQuote']>[0];
type SubmitBody = Parameters<XchainClient['submitGaslessOrder']>[0];

/**
 * An answer as `{ status, body }`: a success's body as the server sent it, or a refusal's
 * google.rpc.Status. Suites compare both with the same assertions (a refusal shows its body).
 */
async function settle(call: Promise<ApiResponse<unknown>>): Promise<{ status: number; body: any }> {
  try {
    const r = await call;
    return { status: r.status, body: r.body };
  } catch (err) {
    if (err instanceof XchainApiError) return { status: err.httpStatus, body: err.status };
    throw err;
  }
}

/** A wallet's view of the gasless flow against one e2e stack: quote, sign, submit, watch. */
export class GaslessClient {
  readonly clients = new Map<string, PublicClient>();
  /** The typed client of the stack's gateway (keyless) every call here goes through. */
  readonly api: XchainClient;
  private readonly minter = privateKeyToAccount(ANVIL_DEV_KEY);

  constructor(
    gatewayUrl: string,
    private readonly rpcUrls: Map<string, string>,
  ) {
    this.api = gatewayClient(gatewayUrl);
    for (const [chain, url] of rpcUrls) this.clients.set(chain, createPublicClient({ transport: http(url) }) as PublicClient);
  }

  client(chain: string): PublicClient {
    const c = this.clients.get(chain);
    if (!c) throw new Error(`no local chain ${chain}`);
    return c;
  }

  newUser(): PrivateKeyAccount {
    return privateKeyToAccount(generatePrivateKey());
  }

  /** Sends a transaction from `account` (the anvil dev key by default) and waits for its receipt. */
  async send(chain: string, tx: { to: Address; data: Hex; value?: bigint }, account: PrivateKeyAccount = this.minter) {
    const wallet = createWalletClient({ transport: http(this.rpcUrls.get(chain)!), account });
    const hash = await wallet.sendTransaction({ ...tx, chain: null });
    return this.client(chain).waitForTransactionReceipt({ hash });
  }

  /** Dev tokens have an open mint. One minter: its transactions go one at a time per chain, so nonces never collide. */
  mint(chain: string, token: Address, to: Address, amount: bigint): Promise<void> {
    const run = async () => {
      const wallet = createWalletClient({ transport: http(this.rpcUrls.get(chain)!), account: this.minter });
      const hash = await wallet.writeContract({ address: token, abi: MINT_ABI, functionName: 'mint', args: [to, amount], chain: null });
      await this.client(chain).waitForTransactionReceipt({ hash, pollingInterval: 50 });
    };
    const next = (this.minting.get(chain) ?? Promise.resolve()).then(run, run);
    this.minting.set(
      chain,
      next.catch(() => undefined),
    );
    return next;
  }
  private readonly minting = new Map<string, Promise<void>>();

  async setNativeBalance(chain: string, who: Address, wei: bigint): Promise<void> {
    await this.client(chain).request({ method: 'anvil_setBalance' as never, params: [who, `0x${wei.toString(16)}`] as never });
  }

  balanceOf(chain: string, token: Address, who: Address): Promise<bigint> {
    return this.client(chain).readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [who] });
  }

  /**
   * A gasless quote of `amount` of `token` from `chain` to Arbitrum USDC, for `user` (`headers`,
   * e.g. an `x-api-key`, go with the request). A refusal throws its XchainApiError.
   */
  async gaslessQuote(
    chain: string,
    token: Address,
    user: Address,
    amount: string,
    headers: Record<string, string> = {},
    over: Partial<QuoteBody> = {},
  ) {
    const body: QuoteBody = {
      src_chain: chain,
      dst_chain: 'arbitrum',
      src_token: token,
      dst_token: T.arbitrum.USDC,
      trade_type: 'TRADE_TYPE_EXACT_INPUT',
      amount,
      gas_drop: '',
      recipient: user,
      refund_address: user,
      gasless: true,
      ...over,
    };
    // Loosely typed on purpose: suites read its fields by name and sign parts of it as served.
    return crossChainOf(await this.api.getQuote(body, { headers })) as Record<string, any>;
  }

  /** Signs the quote's permit2 typed data exactly as served (what a wallet's eth_signTypedData_v4 gets). */
  sign(user: PrivateKeyAccount, typed: unknown): Promise<Hex> {
    return user.signTypedData(JSON.parse(JSON.stringify(typed)));
  }

  async evmBody(user: PrivateKeyAccount, quote: Record<string, any>, withPermit = false) {
    const body: Record<string, unknown> = {
      quote_hash: quote['quote_hash'],
      evm: {
        owner: user.address,
        permit2_nonce: quote['permit2'].message.nonce,
        deadline: quote['permit2'].message.deadline,
        signature: await this.sign(user, quote['permit2']),
        ...(withPermit ? { permit_signature: await this.sign(user, quote['erc2612']) } : {}),
      },
    };
    return body;
  }

  /** SubmitGaslessOrder through the typed client; a refusal comes back as its status and google.rpc.Status, not thrown. */
  submit(body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    // The bodies are built loosely (some malformed on purpose): the gateway, not the client, judges them.
    return settle(this.api.call('SubmitGaslessOrder', body as SubmitBody, { headers }));
  }

  /** GetOrder through the typed client, as `{ status, body }` (a refusal's body is its google.rpc.Status). */
  order(quoteHash: string): Promise<{ status: number; body: any }> {
    return settle(this.api.call('GetOrder', { quote_hash: quoteHash }));
  }

  /** Polls the order view until `done` holds (a positive signal), or fails after `timeoutMs`. */
  async waitOrder(quoteHash: string, done: (view: any) => boolean, timeoutMs = 30_000): Promise<any> {
    const r = await untilHolds(
      `order ${quoteHash} to get there`,
      () => this.order(quoteHash),
      (r) => r.status === 200 && done(r.body),
      { timeoutMs, everyMs: 150 },
    );
    return r.body;
  }

  /** Every Deposited event of a router for a quote hash. */
  async deposits(chain: string, router: Address, quoteHash: Hex) {
    const logs = await this.client(chain).getLogs({ address: router, fromBlock: 0n, toBlock: 'latest' });
    return parseEventLogs({ abi: XCHAIN_ROUTER_ABI, logs, eventName: 'Deposited' }).filter((l) => l.args.quoteHash === quoteHash);
  }
}

const MINT_ABI = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;

export const LOCAL_TOKENS = {
  base: { USDC: T.base.USDC as Address },
  ethereum: { USDC: T.ethereum.USDC as Address, USDT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' as Address },
};

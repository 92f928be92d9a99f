import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { XchainClient } from '@xchain/client';
import { FetchQuoteRpc, OrderStatusSchema, PRICES_BUCKET, QuotePreviewSchema, QuoteSchema, type RpcError } from '@xchain/contracts';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { RpcClient } from '@xchain/messaging';
import { ROOT, runTool, until } from '@xchain/stack';
import { type Hex, decodeFunctionData, encodeAbiParameters, keccak256, parseAbiParameters, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { z } from 'zod';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { apiErrorView, expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, SOL_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(90_000);

/** The published struct, written out as a client would from contracts/src/XchainOrder.sol. */
const ORDER_ABI = parseAbiParameters(
  '(uint8 version, bytes32 salt, uint64 srcChainId, uint64 dstChainId, bytes32 srcToken, bytes32 dstToken, uint256 amountIn, uint256 amountOut, uint256 minAmountOut, bytes32 recipient, bytes32 refundAddress, uint256 gasDrop, uint8 tradeType, uint16 slippageBps, uint16 srcSlippageBps, uint256 dstGasNative, uint256 sponsorGas, bool gasless, bool sponsorFees, bytes32 referrersHash, uint64 issuedAt, uint64 expiresAt, bytes32 depositTarget)',
);

describe('PreviewQuote and GetQuote through the gateway', () => {
  let e2e: E2eStack;
  let nc: NatsConnection;
  let oracle: NatsConnection;
  let api: XchainClient;
  const base = USDC_ETH_TO_ARB;
  const bound = { recipient: EVM_USER, refund_address: EVM_REFUND };
  type QuoteBody = Parameters<XchainClient['getQuote']>[0];
  type PreviewBody = Parameters<XchainClient['previewQuote']>[0];
  /** Overrides may be malformed on purpose: the gateway, not the client, is what refuses them. */
  type Over = { [K in keyof QuoteBody]?: unknown };
  const quote = (over: Over = {}) => api.getQuote({ ...base, ...bound, ...over } as QuoteBody);
  const preview = (over: Over = {}) => api.previewQuote({ ...base, ...over } as PreviewBody);
  /** A quote that must be cross-chain: its `cross_chain` part. */
  const crossChain = async (over: Over = {}) => {
    const q = await quote(over);
    if (!('cross_chain' in q)) throw new Error(`expected a cross-chain quote, got ${JSON.stringify(q)}`);
    return q.cross_chain;
  };
  const expectError = expectApiError;

  beforeAll(async () => {
    e2e = await startE2eStack({
      QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
      PRICE_WALK_SEED: '7',
      PRICE_POLL_MS: '600000', // one price tick: numbers stay put for the suite
      PRICE_MAX_AGE_SECS: '7200',
      REGISTRY_REFRESH_MS: '300',
    });
    // As the services that may do what the suite does (D14): fetch a stored quote as the relayer,
    // write a price as the oracle.
    api = gatewayClient(e2e.gatewayUrl);
    nc = await e2e.connectAs('gasless-relayer');
    oracle = await e2e.connectAs('price-oracle');
  });
  afterAll(async () => {
    await nc?.close();
    await oracle?.close();
    await e2e?.stop();
  });

  it('gives the same numbers in a preview and a quote at the same instant', async () => {
    const pv = await preview();
    const cc = await crossChain();
    for (const k of [
      'amount_in',
      'amount_out',
      'min_amount_out',
      'slippage_bps',
      'fee_breakdown',
      'amount_in_usd_micros',
      'fulfill_eta_secs',
    ] as const) {
      expect([k, cc[k]]).toEqual([k, pv[k]]);
    }
    expect(pv.same_chain_swap).toBe(false);
    expect(pv.fee_breakdown.components.map((c) => c.name)).toEqual(['protocol_fee', 'keyless_spread', 'dst_gas']);
  });

  it('answers a preview, a quote and its order view as exactly their published schemas’ JSON, under the JSON content type', async () => {
    // The gateway passes these on as the quote-engine's bytes (RpcClient.forward): no key the
    // schema does not name, in the schema's order, and headers as for any other JSON answer.
    const exact = async (res: Response, schema: z.ZodType) => {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await res.text();
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      expect(JSON.stringify(schema.parse(JSON.parse(text)))).toBe(text);
      return JSON.parse(text) as unknown;
    };
    const post = (path: string, body: unknown) =>
      fetch(`${e2e.gatewayUrl}/json/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await exact(await post('quote/preview', base), QuotePreviewSchema);
    const q = (await exact(await post('quote', { ...base, ...bound, gasless: true }), QuoteSchema)) as {
      cross_chain: { quote_hash: string };
    };
    const view = (await exact(await fetch(`${e2e.gatewayUrl}/json/v1/orders/${q.cross_chain.quote_hash}`), OrderStatusSchema)) as {
      status: string;
    };
    expect(view.status).toBe('quoted');
  });

  it('returns a quote_hash that viem alone recomputes from the order, and stores the quote', async () => {
    const q = await api.call('GetQuote', {
      ...base,
      ...bound,
      referrers: [{ address: '0x3333333333333333333333333333333333333333', bps: 10 }],
    });
    if (!('cross_chain' in q.data)) throw new Error('expected a cross-chain quote');
    const cc = q.data.cross_chain;
    const o = cc.order; // typed by OrderWireSchema: every field a string, bytes32 as 0x hex
    const b32 = (v: string) => v as Hex;
    const tuple = {
      version: Number(o.version),
      salt: b32(o.salt),
      srcChainId: BigInt(o.src_chain_id),
      dstChainId: BigInt(o.dst_chain_id),
      srcToken: b32(o.src_token),
      dstToken: b32(o.dst_token),
      amountIn: BigInt(o.amount_in),
      amountOut: BigInt(o.amount_out),
      minAmountOut: BigInt(o.min_amount_out),
      recipient: b32(o.recipient),
      refundAddress: b32(o.refund_address),
      gasDrop: BigInt(o.gas_drop),
      tradeType: Number(o.trade_type),
      slippageBps: Number(o.slippage_bps),
      srcSlippageBps: Number(o.src_slippage_bps),
      dstGasNative: BigInt(o.dst_gas_native),
      sponsorGas: BigInt(o.sponsor_gas),
      gasless: o.gasless === 'true',
      sponsorFees: o.sponsor_fees === 'true',
      referrersHash: b32(o.referrers_hash),
      issuedAt: BigInt(o.issued_at),
      expiresAt: BigInt(o.expires_at),
      depositTarget: b32(o.deposit_target),
    };
    expect(keccak256(encodeAbiParameters(ORDER_ABI, [tuple]))).toBe(cc.quote_hash);
    const referrers = o.referrers.map((r) => ({ account: b32(r.account), bps: Number(r.bps) }));
    expect(keccak256(encodeAbiParameters(parseAbiParameters('(bytes32 account, uint16 bps)[]'), [referrers]))).toBe(o.referrers_hash);
    expect(o.amount_in).toBe(cc.amount_in);
    expect(o.min_amount_out).toBe(cc.min_amount_out);
    expect(cc.deposit_target).toBe('0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04');
    expect(Date.parse(cc.expires_at) - Number(o.issued_at) * 1000).toBe(30 * 60 * 1000);
    expect(cc.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const stored = await new RpcClient(nc, 2000).call(FetchQuoteRpc, { quote_hash: cc.quote_hash });
    expect(stored.quote).toEqual(q.body);
    expect(Date.parse(stored.retained_until) - Date.parse(stored.created_at)).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    // The quote tells the end of retention itself (D16), in the interface's format.
    expect(Date.parse(cc.retained_until!)).toBe(Date.parse(stored.retained_until));
    expect(cc.retained_until).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const missing = await new RpcClient(nc, 2000).call(FetchQuoteRpc, { quote_hash: `0x${'0'.repeat(64)}` }).catch((e: unknown) => e);
    expect((missing as RpcError).status.code).toBe(5);
  });

  it('gives a gasless EVM quote the Permit2 typed data a wallet signs as is', async () => {
    const cc = await crossChain({ gasless: true });
    const { permit2, gasless_executor, amount_in, expires_at, order } = cc;
    if (!permit2) throw new Error('a gasless EVM quote carries permit2');
    expect(permit2.primaryType).toBe('PermitWitnessTransferFrom');
    expect(permit2.message).toMatchObject({
      spender: gasless_executor,
      permitted: { amount: amount_in },
      deadline: String(Date.parse(expires_at) / 1000),
    });
    expect(permit2.message.witness.salt).toBe(order.salt);
    expect(cc.deposit_tx).toBeUndefined();
    const account = privateKeyToAccount(generatePrivateKey());
    // the schema types addresses as plain strings; viem wants 0x-templated ones
    const typed = permit2 as Parameters<typeof account.signTypedData>[0];
    const signature = await account.signTypedData(typed);
    expect(await verifyTypedData({ ...typed, address: account.address, signature })).toBe(true);
  });

  it('gives a non-gasless EVM quote the deposit transaction for its order and the approval it needs', async () => {
    const cc = await crossChain();
    const { deposit_tx, approval, deposit_target, quote_hash } = cc;
    expect(deposit_tx).toMatchObject({ to: deposit_target, value: '0' });
    expect(approval).toEqual({ token: USDC_ETH_TO_ARB.src_token, spender: deposit_target, amount: cc.amount_in });
    const call = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: deposit_tx!.data as Hex });
    expect(call.functionName).toBe('deposit');
    expect(keccak256(encodeAbiParameters(ORDER_ABI, [call.args![0] as never]))).toBe(quote_hash);
    const native = await crossChain({ src_token: T.ethereum.ETH, amount: '100000000000000000' });
    expect(native.deposit_tx!.value).toBe(native.amount_in);
    expect(native.approval).toBeUndefined();
  });

  it('prices all four trade types with their documented floors', async () => {
    const eth = { src_token: T.ethereum.ETH, dst_token: T.arbitrum.USDC };
    const exactIn = await crossChain({ ...eth, amount: '100000000000000000' });
    expect(BigInt(exactIn.min_amount_out)).toBe((BigInt(exactIn.amount_out) * 9950n) / 10000n);

    const guaranteed = await crossChain({ ...eth, amount: '100000000000000000', trade_type: 'TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT' });
    expect(guaranteed.min_amount_out).toBe(guaranteed.amount_out);
    expect(guaranteed.slippage_bps).toBe(0);

    const expected = await crossChain({ ...eth, amount: '300000000', trade_type: 2 });
    expect(BigInt(expected.amount_out)).toBeGreaterThanOrEqual(300_000_000n);
    expect(BigInt(expected.amount_out) - 300_000_000n).toBeLessThanOrEqual(1n);
    expect(expected.order.trade_type).toBe('2');

    const exactOut = await crossChain({ ...eth, amount: '300000000', trade_type: 'TRADE_TYPE_EXACT_OUTPUT', slippage_bps: '30' });
    expect(exactOut.min_amount_out).toBe('300000000');
    expect(BigInt(exactOut.amount_in)).toBeGreaterThan(BigInt(expected.amount_in));
  });

  it('answers a same-chain swap as same_chain_swap without gasless fields', async () => {
    const q = await api.call('GetQuote', { ...base, ...bound, dst_chain: 'ethereum', dst_token: T.ethereum.WETH });
    expect(Object.keys(q.body as object)).toEqual(['same_chain_swap']);
    if (!('same_chain_swap' in q.data)) throw new Error('expected a same-chain swap');
    expect((q.data.same_chain_swap as Record<string, unknown>)['gasless']).toBeUndefined();
    expect(q.data.same_chain_swap.fee_breakdown.dst_gas_native).toBe('0');
    expect((await preview({ dst_chain: 'ethereum', dst_token: T.ethereum.WETH })).same_chain_swap).toBe(true);
  });

  it('quotes Solana tokens both ways with base58 addresses', async () => {
    const toSol = await crossChain({ dst_chain: 'solana', dst_token: T.solana.SOL, recipient: SOL_USER });
    expect(BigInt(toSol.amount_out)).toBeGreaterThan(6_000_000_000n); // ~$1000 at ~$142 in lamports
    const fromSol = await crossChain({
      src_chain: 'solana',
      src_token: T.solana.USDC,
      dst_chain: 'base',
      dst_token: T.base.USDC,
      refund_address: SOL_USER,
      gasless: true,
    });
    expect(fromSol).toMatchObject({ gasless: true, fee_payer: expect.any(String), deposit_target: expect.any(String) });
    expect(fromSol.gasless_executor).toBeUndefined();
    for (const evmOnly of ['permit2', 'erc2612', 'deposit_tx', 'approval'] as const) expect(fromSol[evmOnly]).toBeUndefined();
    await expectError(quote({ dst_chain: 'solana', dst_token: T.solana.SOL }), {
      http: 400,
      code: 3,
      reason: 'INVALID_ADDRESS',
      fields: ['recipient'],
    });
    await expectError(quote({ src_chain: 'solana', src_token: T.solana.USDC, refund_address: EVM_REFUND }), {
      http: 400,
      reason: 'INVALID_ADDRESS',
      fields: ['refund_address'],
    });
  });

  it('prices gasless relay gas as sponsor_gas and refuses gasless where it is not offered', async () => {
    const g = await crossChain({ gasless: true });
    expect(g).toMatchObject({ gasless: true, gasless_executor: '0x71268D7045F6fAF62bDea68CE4BaE4fE2184FB8b' });
    expect(g.fee_breakdown.components.find((c) => c.name === 'sponsor_gas')).toMatchObject({ side: 'src' });
    expect(g.fee_breakdown.src_gas_native).toBe('1200000000000000');
    expect(g.order.gasless).toBe('true');
    await expectError(quote({ gasless: true, dst_chain: 'ethereum', dst_token: T.ethereum.WETH }), {
      http: 400,
      reason: 'GASLESS_UNSUPPORTED',
    });
    await expectError(quote({ gasless: true, src_token: T.ethereum.ETH }), { http: 400, reason: 'GASLESS_UNSUPPORTED' });
    await expectError(quote({ gasless: true, src_chain: 'bsc', src_token: T.bsc.USDT }), { http: 400, reason: 'GASLESS_UNSUPPORTED' });
    await expectError(quote({ gasless: true, sponsor_fees: true }), { http: 401, code: 16, reason: 'SPONSOR_FEES_REQUIRES_API_KEY' });
  });

  it('prices referrers and a gas drop, and refuses unusable ones', async () => {
    const q = await crossChain({
      referrers: [{ address: '0x3333333333333333333333333333333333333333', bps: 25 }],
      gas_drop: '1000000000000000',
    });
    const names = q.fee_breakdown.components.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['referrer_fee', 'gas_drop']));
    expect(q.order.gas_drop).toBe('1000000000000000');
    const dup = [
      { address: '0x3333333333333333333333333333333333333333', bps: 1 },
      { address: '0x3333333333333333333333333333333333333333', bps: 1 },
    ];
    await expectError(quote({ referrers: dup }), { http: 400, reason: 'INVALID_REFERRERS' });
    await expectError(quote({ referrers: [{ address: '0x3333333333333333333333333333333333333333', bps: 501 }] }), {
      reason: 'INVALID_REFERRERS',
      metadata: { max_total_bps: '500' },
    });
    await expectError(quote({ referrers: Array.from({ length: 6 }, (_, i) => ({ address: `0x${String(i).repeat(40)}`, bps: 1 })) }), {
      reason: 'INVALID_REFERRERS',
    });
    await expectError(quote({ referrers: [{ address: 'nope', bps: 1 }] }), {
      reason: 'INVALID_REFERRERS',
      fields: ['referrers[0].address'],
    });
    await expectError(quote({ gas_drop: '30000000000000001' }), {
      http: 400,
      reason: 'GAS_DROP_OVER_CAP',
      metadata: { max_gas_drop: '30000000000000000' },
    });
  });

  it.each([
    ['a token not listed', { dst_token: '0x4444444444444444444444444444444444444444' }, 'UNSUPPORTED_PAIR', 'dst_token'],
    ['an unknown chain', { dst_chain: 'fantom' }, 'UNSUPPORTED_PAIR', 'dst_chain'],
    ['a malformed address', { src_token: '0x1234' }, 'INVALID_ADDRESS', 'src_token'],
    ['a missing trade type', { trade_type: undefined }, 'INVALID_REQUEST', 'trade_type'],
    ['an unspecified trade type', { trade_type: 'TRADE_TYPE_UNSPECIFIED' }, 'INVALID_REQUEST', 'trade_type'],
    ['an unknown trade type', { trade_type: 'TRADE_TYPE_LIMIT' }, 'INVALID_REQUEST', 'trade_type'],
    ['a decimal amount', { amount: '1.5' }, 'INVALID_REQUEST', 'amount'],
    ['a signed amount', { amount: '+100' }, 'INVALID_REQUEST', 'amount'],
    ['an amount over uint256', { amount: (1n << 256n).toString() }, 'INVALID_REQUEST', 'amount'],
    ['a negative slippage', { slippage_bps: -1 }, 'INVALID_REQUEST', 'slippage_bps'],
    [
      '100 % slippage on an expected-output quote',
      { trade_type: 'TRADE_TYPE_EXPECTED_OUTPUT', slippage_bps: 10000 },
      'INVALID_SLIPPAGE',
      'slippage_bps',
    ],
  ])('answers %s with INVALID_ARGUMENT naming the field', async (_name, over, reason, field) => {
    await expectError(quote(over), { http: 400, code: 3, reason, fields: [field] });
  });

  it('enforces the size band with the band in metadata', async () => {
    await expectError(quote({ amount: '999999' }), {
      http: 400,
      reason: 'AMOUNT_BELOW_MIN',
      metadata: { min_amount: '1000000', max_amount: expect.any(String) },
    });
    await expectError(quote({ src_token: T.ethereum.ETH, amount: '1000000000000000000000' }), { http: 400, reason: 'AMOUNT_ABOVE_MAX' });
  });

  it('answers UNAVAILABLE for a suspended bridge, short inventory, a stale price and a disabled chain', async () => {
    await expectError(quote({ dst_chain: 'bsc', dst_token: T.bsc.USDT }), { http: 503, code: 14, reason: 'BRIDGE_SUSPENDED' });
    await expectError(quote({ dst_chain: 'optimism', dst_token: T.optimism.WBTC, amount: '200000000000' }), {
      http: 503,
      reason: 'INSUFFICIENT_INVENTORY',
      metadata: { available: '100000000' },
    });

    // Operator changes through the seed tool: base disabled, and BONK re-pointed to a price
    // identity whose only value is three hours old (the suite allows two).
    const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8'));
    registry.chains.find((c: { chain: string }) => c.chain === 'base').enabled = false;
    registry.tokens.find((t: { symbol: string }) => t.symbol === 'BONK').coingecko_id = 'stale-test';
    const kv = await new Kvm(oracle).open(PRICES_BUCKET);
    const old = {
      price_id: 'stale-test',
      price: '1129',
      expo: -8,
      conf: '0',
      publish_time: Math.floor(Date.now() / 1000) - 3 * 3600,
      source: 'pyth',
    };
    await kv.put('stale-test', JSON.stringify(old));
    const file = join(e2e.logDir, 'registry-changed.json');
    writeFileSync(file, JSON.stringify(registry));
    await runTool('dist/apps/quote-engine/src/seed.js', [file], { ...e2e.stack.env, DATABASE_URL: e2e.databaseUrl('quote_engine') });
    // The quote-engine picks the change up on its own schedule: poll for the first effect with a deadline.
    const reasonOf = (over: Over) =>
      quote(over).then(
        () => 'priced',
        (e: unknown) => apiErrorView(e).reason,
      );
    await until(
      'the registry change to reach the quote-engine',
      async () => (await reasonOf({ dst_chain: 'base', dst_token: T.base.USDC })) === 'CHAIN_DISABLED',
      { timeoutMs: 15_000, everyMs: 100 },
    );
    await until(
      'BONK on its stale price identity',
      async () => (await reasonOf({ dst_chain: 'solana', dst_token: T.solana.BONK, recipient: SOL_USER })) === 'STALE_PRICE',
      { timeoutMs: 15_000, everyMs: 100 },
    );
    await expectError(quote({ dst_chain: 'base', dst_token: T.base.USDC }), {
      http: 503,
      reason: 'CHAIN_DISABLED',
      metadata: { chain: 'base' },
    });
    await expectError(quote({ dst_chain: 'solana', dst_token: T.solana.BONK, recipient: SOL_USER }), {
      http: 503,
      reason: 'STALE_PRICE',
      metadata: { price_id: 'stale-test', max_age_secs: '7200' },
    });
  });
});

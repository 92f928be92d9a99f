import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ROOT } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { GaslessClient, LOCAL_TOKENS } from '../support/gasless-client';
import { OpenApiConformance } from '../support/openapi-conformance';
import { EVM_REFUND, EVM_USER, T, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { SseClient } from '../support/sse';

jest.setTimeout(120_000);

/** Runs a tool of the repository (its own node_modules) with Node; resolves with its exit code and output. */
function run(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 90_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

/**
 * An integrator's code over the types openapi-typescript generates from the served document: a
 * small typed `post` and a gasless swap (GetQuote, then SubmitGaslessOrder). It must type-check.
 */
const CALLS_TS = `import type { components, paths } from './api';

type PostPath = { [P in keyof paths]: paths[P] extends { post: object } ? P : never }[keyof paths];
type Post<P extends PostPath> = NonNullable<paths[P]['post']>;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type RequestOf<P extends PostPath> = JsonOf<NonNullable<Post<P>['requestBody']>>;
export type AnswerOf<P extends PostPath> = JsonOf<Post<P>['responses'][200]>;

export async function post<P extends PostPath>(baseUrl: string, path: P, body: RequestOf<P>): Promise<AnswerOf<P>> {
  const res = await fetch(baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(path + ': HTTP ' + res.status);
  return (await res.json()) as AnswerOf<P>;
}

export async function swapGasless(baseUrl: string, owner: string, sign: (typed: components['schemas']['Permit2TypedData']) => Promise<string>) {
  const quote = await post(baseUrl, '/json/v1/quote', {
    src_chain: 'base',
    dst_chain: 'arbitrum',
    src_token: '${T.base.USDC}',
    dst_token: '${T.arbitrum.USDC}',
    trade_type: 'TRADE_TYPE_EXACT_INPUT',
    amount: '25000000',
    recipient: owner,
    refund_address: owner,
    gasless: true,
  });
  if (!('cross_chain' in quote)) throw new Error('a same-chain swap');
  const { quote_hash, permit2, fee_breakdown } = quote.cross_chain;
  if (!permit2) throw new Error('nothing to sign');
  const fees: string = fee_breakdown.src_total_usd_micros;
  const result = await post(baseUrl, '/json/v1/gasless/orders', {
    quote_hash,
    evm: { owner, permit2_nonce: permit2.message.nonce, deadline: permit2.message.deadline, signature: await sign(permit2) },
  });
  const status: 'queued' | 'submitted' | 'confirmed' | 'failed' = result.status;
  return { quote_hash, fees, status, tx_hash: result.tx_hash };
}
`;

/** The same calls with mistakes a wrong field in the document would let through: each marked line must be a type error. */
const WRONG_TS = `import { post } from './calls';

export async function wrong(baseUrl: string, owner: string) {
  const quote = await post(baseUrl, '/json/v1/quote', {
    src_chain: 'base',
    dst_chain: 'arbitrum',
    src_token: '${T.base.USDC}',
    dst_token: '${T.arbitrum.USDC}',
    trade_type: 'TRADE_TYPE_EXACT_INPUT',
    amount: 25000000, // WRONG: amounts are decimal strings
    recipient: owner,
    refund_address: owner,
  });
  if (!('cross_chain' in quote)) throw new Error('a same-chain swap');
  const hash: number = quote.cross_chain.quote_hash; // WRONG: the hash is a string
  const result = await post(baseUrl, '/json/v1/gasless/orders', {
    quote_hash: quote.cross_chain.quote_hash,
    evm: { owner, permit2_nonce: '0', deadline: '0', signatur: '0x' }, // WRONG: no such field (signature)
  });
  const tx: string | undefined = result.txHash; // WRONG: the field is tx_hash
  if (result.status === 'done') return; // WRONG: not a status of the document
  await post(baseUrl, '/json/v1/gasless/orders', { evm: { owner, permit2_nonce: '0', deadline: '0', signature: '0x' } }); // WRONG: quote_hash is required
  return [hash, tx];
}
`;

/**
 * The OpenAPI document the gateway serves, checked with what integrators use (a maintained OpenAPI
 * 3.1 validator, openapi-typescript and tsc), and real answers of the main operations, good and
 * bad, checked against it with Ajv (test/support/openapi-conformance.ts).
 */
describe('the served OpenAPI document against integrator tools and real answers', () => {
  let e2e: E2eStack;
  let oas: OpenApiConformance;
  let g: GaslessClient;
  let url: (path: string) => string;
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const quoteBody = { ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND };

  beforeAll(async () => {
    e2e = await startE2eStack(
      { PRICE_POLL_MS: '600000', PRICE_MAX_AGE_SECS: '7200', RELAY_POLL_MS: '200', RELAY_SWEEP_MS: '1000', CHAIN_WATCH_POLL_MS: '300' },
      { devnet: { chains: ['base'] } },
    );
    url = (path) => `${e2e.gatewayUrl}/json${path}`;
    oas = await OpenApiConformance.load(e2e.gatewayUrl);
    g = new GaslessClient(e2e.gatewayUrl, new Map([...e2e.devnet!.chains].map(([name, c]) => [name, c.rpcUrl])));
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  it('is valid OpenAPI 3.1 for a maintained validator, and every schema compiles in strict JSON Schema 2020-12', async () => {
    const result = await new Validator().validate(oas.document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const schemas = oas.document['components'].schemas as Record<string, Record<string, unknown>>;
    expect(Object.entries(schemas).filter(([name, s]) => s['$ref'] === `#/components/schemas/${name}`)).toEqual([]);
    expect(oas.compileComponents()).toEqual(Object.keys(schemas));
  });

  it('generates TypeScript types (openapi-typescript) under which a GetQuote and a SubmitGaslessOrder call type-check, and wrong fields do not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xchain-openapi-ts-'));
    try {
      // as an integrator would: straight from the served URL
      const gen = await run(
        [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), `${e2e.gatewayUrl}/json/v1/openapi.json`, '-o', 'api.d.ts'],
        dir,
      );
      expect([gen.code, gen.out]).toEqual([0, expect.stringContaining('api.d.ts')]);
      const types = readFileSync(join(dir, 'api.d.ts'), 'utf8');
      expect(types).toContain('GetQuoteRequest: {');
      writeFileSync(join(dir, 'calls.ts'), CALLS_TS);
      writeFileSync(join(dir, 'wrong.ts'), WRONG_TS);
      // the repository's tsc, strict, checking the generated declarations too (no skipLibCheck)
      const tsc = await run(
        [
          join(ROOT, 'node_modules/typescript/bin/tsc'),
          ...['--noEmit', '--strict', '--pretty', 'false', '--target', 'es2022', '--lib', 'es2022,dom'],
          ...['--module', 'esnext', '--moduleResolution', 'bundler', 'calls.ts', 'wrong.ts'],
        ],
        dir,
      );
      const errors = [...tsc.out.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => ({
        file: m[1],
        line: Number(m[2]),
        code: m[3],
      }));
      // calls.ts and the generated api.d.ts are clean; wrong.ts fails exactly on its marked lines
      expect(errors.filter((e) => e.file !== 'wrong.ts')).toEqual([]);
      const marked = WRONG_TS.split('\n').flatMap((line, i) => (line.includes('// WRONG') ? [i + 1] : []));
      expect(marked).toHaveLength(6);
      expect([...new Set(errors.map((e) => e.line))].sort((a, b) => a - b)).toEqual(marked);
      expect(tsc.code).not.toBe(0);
      expect(tsc.out).toContain("'signatur' does not exist");
      expect(tsc.out).toContain("Property 'quote_hash' is missing");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ListTokens and GetChains answer as documented, and refuse an unknown API key as documented', async () => {
    const tokens = await oas.expectAnswer(await fetch(url('/v1/tokens')), 'GET', '/json/v1/tokens');
    expect(tokens.tokens.length).toBeGreaterThan(0);
    const chains = await oas.expectAnswer(await fetch(url('/v1/chains')), 'GET', '/json/v1/chains');
    expect(chains.chains.map((c: { chain: string }) => c.chain)).toContain('base');
    for (const path of ['/v1/tokens', '/v1/chains']) {
      const res = await fetch(url(path), { headers: { 'x-api-key': 'xk_not_a_key' } });
      expect(res.status).toBe(401);
      expect(await oas.expectAnswer(res, 'GET', `/json${path}`)).toMatchObject({ code: 16 });
    }
  });

  it('PreviewQuote answers as documented; a malformed amount is a documented 400', async () => {
    expect(oas.checkRequest('POST', '/json/v1/quote/preview', USDC_ETH_TO_ARB)).toEqual([]);
    const pv = await oas.expectAnswer(await fetch(url('/v1/quote/preview'), json(USDC_ETH_TO_ARB)), 'POST', '/json/v1/quote/preview');
    expect(pv.amount_in).toBe(USDC_ETH_TO_ARB.amount);
    const same = { ...USDC_ETH_TO_ARB, dst_chain: 'ethereum', dst_token: T.ethereum.WETH };
    expect(
      (await oas.expectAnswer(await fetch(url('/v1/quote/preview'), json(same)), 'POST', '/json/v1/quote/preview')).same_chain_swap,
    ).toBe(true);
    const bad = await fetch(url('/v1/quote/preview'), json({ ...USDC_ETH_TO_ARB, amount: '1.5' }));
    expect(bad.status).toBe(400);
    const status = await oas.expectAnswer(bad, 'POST', '/json/v1/quote/preview');
    expect(status.code).toBe(3);
    expect(JSON.stringify(status.details)).toContain('amount');
  });

  it('GetQuote answers a cross-chain and a same-chain quote as documented; a missing recipient and a reused Idempotency-Key are documented errors', async () => {
    expect(oas.checkRequest('POST', '/json/v1/quote', quoteBody)).toEqual([]);
    const cc = await oas.expectAnswer(await fetch(url('/v1/quote'), json(quoteBody)), 'POST', '/json/v1/quote');
    expect(Object.keys(cc)).toEqual(['cross_chain']);
    // the check has teeth: a number for an amount, a key the document does not name, a missing hash
    const misfits = (body: unknown) => oas.checkAnswer('POST', '/json/v1/quote', 200, body).errors.length;
    expect(misfits({ cross_chain: { ...cc.cross_chain, amount_out: 5 } })).toBeGreaterThan(0);
    expect(misfits({ cross_chain: { ...cc.cross_chain, surprise: true } })).toBeGreaterThan(0);
    expect(misfits({ cross_chain: { ...cc.cross_chain, quote_hash: undefined } })).toBeGreaterThan(0);
    expect(oas.checkAnswer('POST', '/json/v1/quote', 400, { code: '3', message: 'x', details: [] }).errors).not.toEqual([]);
    const same = { ...quoteBody, dst_chain: 'ethereum', dst_token: T.ethereum.WETH, refund_address: EVM_USER };
    expect(Object.keys(await oas.expectAnswer(await fetch(url('/v1/quote'), json(same)), 'POST', '/json/v1/quote'))).toEqual([
      'same_chain_swap',
    ]);

    const { recipient: _r, ...noRecipient } = quoteBody;
    expect(oas.checkRequest('POST', '/json/v1/quote', noRecipient)).not.toEqual([]); // the document says so too
    const missing = await fetch(url('/v1/quote'), json(noRecipient));
    expect(missing.status).toBe(400);
    expect((await oas.expectAnswer(missing, 'POST', '/json/v1/quote')).code).toBe(3);

    const key = { 'idempotency-key': `openapi-e2e-${Date.now()}` };
    await oas.expectAnswer(await fetch(url('/v1/quote'), json(quoteBody, key)), 'POST', '/json/v1/quote');
    const reused = await fetch(url('/v1/quote'), json({ ...quoteBody, amount: '2000000000' }, key));
    expect(reused.status).toBe(409);
    expect(oas.checkAnswer('POST', '/json/v1/quote', 409, {}).documentedAs).toBe('409');
    expect(JSON.stringify(await oas.expectAnswer(reused, 'POST', '/json/v1/quote'))).toContain('IDEMPOTENCY_KEY_REUSED');
  });

  it('GetOrder and its event stream answer a stored quote as documented; an unknown and a malformed hash are documented errors', async () => {
    const q = await oas.expectAnswer(await fetch(url('/v1/quote'), json(quoteBody)), 'POST', '/json/v1/quote');
    const hash = q.cross_chain.quote_hash as string;
    const view = await oas.expectAnswer(await fetch(url(`/v1/orders/${hash}`)), 'GET', '/json/v1/orders/{quote_hash}');
    expect(view).toMatchObject({ quote_hash: hash, status: 'quoted' });

    const stream = await SseClient.open(url(`/v1/orders/${hash}/events`));
    try {
      expect(stream.status).toBe(200);
      const first = await stream.next((e) => e.event === 'order');
      const result = oas.checkAnswer('GET', '/json/v1/orders/{quote_hash}/events', 200, JSON.parse(first.data), 'text/event-stream');
      expect(result).toEqual({ documentedAs: '200', errors: [] });
    } finally {
      stream.close();
    }

    const unknown = await fetch(url(`/v1/orders/0x${'ab'.repeat(32)}`));
    expect(unknown.status).toBe(404);
    expect((await oas.expectAnswer(unknown, 'GET', '/json/v1/orders/{quote_hash}')).code).toBe(5);
    const malformed = await fetch(url('/v1/orders/not-a-hash'));
    expect(malformed.status).toBe(400);
    expect((await oas.expectAnswer(malformed, 'GET', '/json/v1/orders/{quote_hash}')).code).toBe(3);
  });

  it('SubmitGaslessOrder relays a signed order as documented, and the order then reads and lists as documented; bad submissions are documented errors', async () => {
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '20000000');
    const body = await g.evmBody(user, q, true);
    expect(oas.checkRequest('POST', '/json/v1/gasless/orders', body)).toEqual([]);
    const submitted = await oas.expectAnswer(await fetch(url('/v1/gasless/orders'), json(body)), 'POST', '/json/v1/gasless/orders');
    expect(submitted).toMatchObject({ quote_hash: q['quote_hash'], status: 'queued' });

    await g.waitOrder(q['quote_hash'], (v) => v.gasless?.status === 'confirmed' && v.status === 'deposited');
    const view = await oas.expectAnswer(await fetch(url(`/v1/orders/${q['quote_hash']}`)), 'GET', '/json/v1/orders/{quote_hash}');
    expect(view).toMatchObject({ status: 'deposited', gasless: { status: 'confirmed' }, deposit: { chain: 'base' } });
    const again = await oas.expectAnswer(await fetch(url('/v1/gasless/orders'), json(body)), 'POST', '/json/v1/gasless/orders');
    expect(again).toMatchObject({ status: 'confirmed', tx_hash: view.gasless.tx_hash });

    const listed = await oas.expectAnswer(await fetch(url(`/v1/orders?address=${user.address}`)), 'GET', '/json/v1/orders');
    expect(listed.orders.map((o: { quote_hash: string }) => o.quote_hash)).toEqual([q['quote_hash']]);

    const unknown = await fetch(url('/v1/gasless/orders'), json({ ...body, quote_hash: `0x${'cd'.repeat(32)}` }));
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(await oas.expectAnswer(unknown, 'POST', '/json/v1/gasless/orders'))).toContain('QUOTE_NOT_FOUND');
    const malformed = await fetch(url('/v1/gasless/orders'), json({ evm: body['evm'] }));
    expect(malformed.status).toBe(400);
    expect((await oas.expectAnswer(malformed, 'POST', '/json/v1/gasless/orders')).code).toBe(3);
  });

  it('ListOrders answers as documented, an empty page too; a missing address is a documented 400', async () => {
    // An order (a quote used: here submitted gasless) is listed; a quote nobody used is not (issue 45).
    const user = g.newUser();
    await g.mint('base', LOCAL_TOKENS.base.USDC, user.address, 50_000_000n);
    const q = await g.gaslessQuote('base', LOCAL_TOKENS.base.USDC, user.address, '20000000');
    await oas.expectAnswer(await fetch(url('/v1/gasless/orders'), json(await g.evmBody(user, q, true))), 'POST', '/json/v1/gasless/orders');
    await g.waitOrder(q['quote_hash'], (v) => v.status === 'deposited');
    const page = await oas.expectAnswer(await fetch(url(`/v1/orders?address=${user.address}&page_size=1`)), 'GET', '/json/v1/orders');
    expect(page.orders).toHaveLength(1);
    const empty = await oas.expectAnswer(await fetch(url(`/v1/orders?address=0x${'9'.repeat(40)}`)), 'GET', '/json/v1/orders');
    expect(empty.orders).toEqual([]);
    const missing = await fetch(url('/v1/orders'));
    expect(missing.status).toBe(400);
    expect((await oas.expectAnswer(missing, 'GET', '/json/v1/orders')).code).toBe(3);
  });
});

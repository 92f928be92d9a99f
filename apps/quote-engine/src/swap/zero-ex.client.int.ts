import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RpcError } from '@xchain/contracts';
import { ZeroExClient } from './zero-ex.client';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

/** A loopback server replaying 0x Swap API v2 answers, recording what it was asked. */
describe('0x Swap API v2 client against replayed responses', () => {
  let server: Server;
  let base: string;
  let reply: { status: number; body: string; delayMs?: number } = { status: 200, body: '' };
  const seen: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      setTimeout(() => res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body), reply.delayMs ?? 0);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = () => new ZeroExClient({ baseUrl: base, apiKey: 'test-key', timeoutMs: 300 });
  const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
  const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';

  async function reason(p: Promise<unknown>): Promise<Record<string, string> | undefined> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RpcError);
    const info = (err as RpcError).status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    expect((err as RpcError).status.code).toBe(14);
    return info && 'reason' in info ? { reason: info.reason, ...(info.metadata ?? {}) } : undefined;
  }

  it('reads buy and sell amounts from a real-format answer and sends the v2 headers', async () => {
    reply = { status: 200, body: fixture('0x-price-usdc-weth-ethereum.json') };
    const price = await client().price(1n, USDC, WETH, 1_000_000_000n);
    expect(price).toEqual({ sellAmount: 1_000_000_000n, buyAmount: 284519273518204911n, zid: '0x9e3b0f1c2a7d4e6b8c5a1f3d' });
    const last = seen.at(-1)!;
    expect(last.url).toContain('/swap/allowance-holder/price?chainId=1');
    expect(last.url).toContain(`sellToken=${USDC}`);
    expect(last.headers['0x-version']).toBe('v2');
    expect(last.headers['0x-api-key']).toBe('test-key');
  });

  it('asks for the native asset with 0x’s marker address', async () => {
    reply = { status: 200, body: fixture('0x-price-usdc-weth-ethereum.json').replace('"1000000000"', '"5"') };
    await client().price(1n, '0x0000000000000000000000000000000000000000', WETH, 5n);
    expect(seen.at(-1)!.url).toContain('sellToken=0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE');
  });

  it.each([
    ['no liquidity', { status: 200, body: fixture('0x-price-no-liquidity.json') }, 'no_liquidity'],
    ['a 400 error body', { status: 400, body: fixture('0x-error-input-invalid.json') }, 'http_400'],
    ['a 500', { status: 500, body: '{}' }, 'http_500'],
    ['garbage', { status: 200, body: '<html>' }, 'malformed_response'],
    ['a slow answer', { status: 200, body: fixture('0x-price-usdc-weth-ethereum.json'), delayMs: 1000 }, 'timeout'],
  ])('turns %s into AGGREGATOR_FAILURE', async (_name, r, detail) => {
    reply = r;
    expect(await reason(client().price(1n, USDC, WETH, 1_000_000_000n))).toEqual({ reason: 'AGGREGATOR_FAILURE', detail });
  });
});

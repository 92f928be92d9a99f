import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { until } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { crossChainOf, gatewayClient } from '../support/http';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(60_000);

/**
 * One trace per request across gateway → NATS → quote-engine → PostgreSQL, exported by the real
 * services over OTLP/HTTP to a receiver in this test, and the trace id in the structured logs.
 */
describe('tracing across the services', () => {
  const receiver = new OtlpReceiver();
  let e2e: E2eStack;

  beforeAll(async () => {
    const endpoint = await receiver.start();
    e2e = await startE2eStack({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });
  afterAll(async () => {
    await e2e?.stop();
    await receiver.stop();
  });

  it('links HTTP, NATS and database spans of one request in one trace', async () => {
    // The order view reads the quote-engine's database on every request (the token list is served from memory).
    const api = gatewayClient(e2e.gatewayUrl);
    const quoted = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }));
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await api.call(
      'GetOrder',
      { quote_hash: quoted.quote_hash },
      { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
    );
    expect(res.data.quote_hash).toBe(quoted.quote_hash);
    expect(res.headers.get('x-request-id')).toBe(traceId);

    const inTrace = (spans: ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
    const spans = inTrace(
      await receiver.waitFor((all) => {
        const mine = inTrace(all);
        return (
          mine.some((s) => s.service === 'quote-engine' && s.name.startsWith('pg.query')) &&
          mine.some((s) => s.service === 'gateway' && s.name === 'order.v1.get send') &&
          mine.some((s) => s.service === 'gateway' && s.kind === 2)
        );
      }),
    );
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const httpSpan = spans.find((s) => s.service === 'gateway' && s.kind === 2 && s.parentSpanId === '00f067aa0ba902b7');
    const send = spans.find((s) => s.service === 'gateway' && s.name === 'order.v1.get send');
    const processSpan = spans.find((s) => s.service === 'quote-engine' && s.name === 'order.v1.get process');
    const query = spans.find((s) => s.service === 'quote-engine' && s.name.startsWith('pg.query'));
    expect(httpSpan).toBeDefined();
    expect(send).toBeDefined();
    expect(processSpan?.parentSpanId).toBe(send!.spanId);
    expect(query).toBeDefined();

    // Every span's parent chain leads back to the gateway's HTTP span.
    const chainToRoot = (s: ReceivedSpan): string[] => {
      const names = [`${s.service}:${s.name}`];
      let cur = s;
      while (cur.parentSpanId && byId.has(cur.parentSpanId)) {
        cur = byId.get(cur.parentSpanId)!;
        names.push(`${cur.service}:${cur.name}`);
      }
      expect(cur.spanId).toBe(httpSpan!.spanId);
      return names;
    };
    expect(chainToRoot(query!)).toEqual(expect.arrayContaining(['quote-engine:order.v1.get process', 'gateway:order.v1.get send']));
    chainToRoot(send!);
  });

  it('keeps the trace of a request with a body: the NATS call and the access line are in it', async () => {
    // The body is read from socket events, outside the request's context; the trace must survive that.
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    // Sent in two writes 100 ms apart, so the body's second half arrives on a later socket event.
    const res = await postInTwoParts(
      `${e2e.gatewayUrl}/json/v1/quote`,
      JSON.stringify({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND }),
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(traceId);
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const spans = (
      await receiver.waitFor((all) => {
        const mine = all.filter((s) => s.traceId === traceId);
        return (
          mine.some((s) => s.service === 'quote-engine' && s.name === 'quote.v1.get process') &&
          mine.some((s) => s.service === 'gateway' && s.kind === 2)
        );
      })
    ).filter((s) => s.traceId === traceId);
    const httpSpan = spans.find((s) => s.service === 'gateway' && s.kind === 2);
    expect(httpSpan).toMatchObject({ name: 'POST /json/v1/quote', parentSpanId: 'b7ad6b7169203331' });
    expect(httpSpan!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/json/v1/quote',
      'url.path': '/json/v1/quote',
    });
    expect(String(httpSpan!.attributes['http.response.status_code'])).toBe('200');
    // The span the client was told about is the gateway's server span.
    expect(res.headers.get('traceparent')).toBe(`00-${traceId}-${httpSpan!.spanId}-01`);
    const send = spans.find((s) => s.service === 'gateway' && s.name === 'quote.v1.get send');
    expect(send?.parentSpanId).toBe(httpSpan!.spanId);
    expect(spans.find((s) => s.service === 'quote-engine' && s.name === 'quote.v1.get process')?.parentSpanId).toBe(send!.spanId);

    expect(await accessLineOf(e2e.logDir, traceId)).toMatchObject({ path: '/json/v1/quote', status: 200, span_id: httpSpan!.spanId });
  });

  it('writes structured JSON logs that carry the trace id', async () => {
    const res = await gatewayClient(e2e.gatewayUrl).call('GetChains');
    const id = res.headers.get('x-request-id')!;
    expect(await accessLineOf(e2e.logDir, id)).toMatchObject({ level: 'info', service: 'gateway', path: '/json/v1/chains', status: 200 });
  });
});

/** The gateway's access line for a trace id. It is written after the answer: polled for, not slept on. */
async function accessLineOf(logDir: string, traceId: string): Promise<Record<string, unknown>> {
  const find = () =>
    readFileSync(join(logDir, 'gateway.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e['trace_id'] === traceId && e['msg'] === 'request');
  await until(`the access line of trace ${traceId}`, async () => find() !== undefined, { timeoutMs: 10_000, everyMs: 100 });
  return find()!;
}

/** POSTs a JSON body in two writes with a pause between them; resolves with the status and headers. */
async function postInTwoParts(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h });
        });
      },
    );
    req.on('error', reject);
    req.flushHeaders();
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    void sleep(100).then(() => req.end(body.slice(half)));
  });
}

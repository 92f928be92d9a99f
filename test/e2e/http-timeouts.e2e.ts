import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { StatusSchema } from '@xchain/contracts';
import { ROOT, until } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { crossChainOf, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';
import { SseClient } from '../support/sse';

jest.setTimeout(90_000);

const REQUEST_TIMEOUT_MS = 2000;
const HEADERS_TIMEOUT_MS = 1000;
const IDLE_TIMEOUT_MS = 3000;
/**
 * The cut-off in bounded time is the point of this suite, so it stays a bound, but a generous one:
 * Node checks request deadlines on an interval (the gateway sets it to at most 1 s), and a shared
 * machine adds its own lag. Generous still separates the gateway's settings from what it would do
 * without them (no limit at all, or Node's defaults of 60 s for headers and 300 s for the request),
 * and stays under the clients' 20 s give-up.
 */
const CUT_OFF_SLACK_MS = 5000;

interface SlowResult {
  /** Whole response as received (status line, headers, body). */
  response: string;
  /** Milliseconds from connecting until the server closed the socket. */
  closedAfterMs: number;
  /** Bytes of the request the client managed to send. */
  sent: number;
}

/**
 * A client that trickles its request: `head` at once, then `drip` one byte a second, until the
 * server answers and closes (or `giveUpMs` passes: the test then fails on the missing 408).
 */
function slowClient(port: number, head: string, drip: string, giveUpMs: number): Promise<SlowResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket: Socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(head);
      sent += Buffer.byteLength(head);
      let i = 0;
      timer = setInterval(() => {
        if (i < drip.length && socket.writable) {
          socket.write(drip[i++]!);
          sent++;
        }
      }, 1000);
    });
    const giveUp = setTimeout(() => socket.destroy(new Error(`the server was still reading after ${giveUpMs} ms`)), giveUpMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      // A reset after the server answered is the close; anything else is the failure.
      if (chunks.length === 0) {
        clearInterval(timer);
        clearTimeout(giveUp);
        reject(err);
      }
    });
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ response: Buffer.concat(chunks).toString('utf8'), closedAfterMs: Date.now() - started, sent });
    });
  });
}

function parseResponse(raw: string): { status: number; body: unknown } {
  const [head, body = ''] = raw.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
  return { status, body: body ? JSON.parse(body) : undefined };
}

/** The gateway's request, header and idle deadlines: slow clients are cut off, long responses are not. */
describe('gateway HTTP timeouts', () => {
  let e2e: E2eStack;
  let port: number;

  beforeAll(async () => {
    e2e = await startE2eStack({
      QUOTING_CONFIG_FILE: join(ROOT, 'test/fixtures/quoting.e2e.json'),
      PRICE_POLL_MS: '600000',
      PRICE_MAX_AGE_SECS: '7200',
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      SSE_HEARTBEAT_MS: '500',
    });
    port = e2e.ports.gateway;
  }, 120_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  it('cuts off a body sent one byte a second with 408 REQUEST_TIMEOUT in the error shape, within the request timeout', async () => {
    const body = JSON.stringify({ ...USDC_ETH_TO_ARB });
    const head = `POST /json/v1/quote/preview HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const r = await slowClient(port, head, body, 20_000);

    const { status, body: answer } = parseResponse(r.response);
    expect(status).toBe(408);
    const s = StatusSchema.parse(answer);
    expect(s.code).toBe(4); // DEADLINE_EXCEEDED
    expect(s.details).toEqual([expect.objectContaining({ reason: 'REQUEST_TIMEOUT' })]);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(r.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + CUT_OFF_SLACK_MS);
    // The client got nowhere near sending its whole body.
    expect(r.sent).toBeLessThan(Buffer.byteLength(head) + 5);
    // The cut-off is the client's doing: logged at info, never as an unhandled error.
    const logFile = join(e2e.logDir, 'gateway.log');
    const lines = () =>
      existsSync(logFile)
        ? readFileSync(logFile, 'utf8')
            .split('\n')
            .filter((l) => /aborted|request body not received/.test(l))
        : [];
    await until('the gateway to log the cut-off', () => lines().length > 0, { timeoutMs: 10_000, everyMs: 100 });
    const logged = lines().map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(logged).toEqual([expect.objectContaining({ level: 'info', msg: expect.stringMatching(/^request body not received/) })]);
  });

  it('cuts off headers sent one byte a second with 408 within the headers timeout', async () => {
    const r = await slowClient(port, 'GET /json/v1/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaa\r\n\r\n', 20_000);

    const { status, body } = parseResponse(r.response);
    expect(status).toBe(408);
    expect(StatusSchema.parse(body).details).toEqual([expect.objectContaining({ reason: 'REQUEST_TIMEOUT' })]);
    expect(r.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + CUT_OFF_SLACK_MS);
  });

  it('answers a request that arrives in time on a raw socket as usual', async () => {
    const r = await slowClient(port, 'GET /json/v1/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', '', 10_000);
    expect(parseResponse(r.response).status).toBe(200);
  });

  it('keeps an order event stream open well past the request and idle timeouts (they bound receiving, not responding)', async () => {
    const q = await gatewayClient(e2e.gatewayUrl).getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND });
    const quoteHash = crossChainOf(q).quote_hash;
    const stream = await SseClient.open(`${e2e.gatewayUrl}/json/v1/orders/${quoteHash}/events`);
    try {
      expect(stream.status).toBe(200);
      await stream.next((e) => e.event === 'order');
      const opened = Date.now();
      // A heartbeat that arrives after both deadlines have passed proves the stream outlived them.
      const beyond = opened + REQUEST_TIMEOUT_MS + IDLE_TIMEOUT_MS + 500;
      while (Date.now() < beyond) await stream.nextComment(stream.comments.length, 5000);
      await stream.nextComment(stream.comments.length, 5000);
      expect(stream.ended).toBe(false);
      expect(Date.now() - opened).toBeGreaterThan(REQUEST_TIMEOUT_MS + IDLE_TIMEOUT_MS);
    } finally {
      stream.close();
    }
  });
});

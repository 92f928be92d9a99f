import type { XchainClient } from '@xchain/client';
import { untilHolds } from '@xchain/stack';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { crossChainOf, expectApiError, gatewayClient } from '../support/http';
import { EVM_REFUND, EVM_USER, USDC_ETH_TO_ARB } from '../support/registry-fixture';

jest.setTimeout(90_000);

/** Resolves once the stream is open (its events are read and dropped), with the function that closes it; rejects with a refusal. */
function openStream(api: XchainClient, quoteHash: string): Promise<() => void> {
  const abort = new AbortController();
  return new Promise((resolve, reject) => {
    const events = api.streamOrderEvents(quoteHash, { signal: abort.signal, onOpen: () => resolve(() => abort.abort()) });
    void (async () => {
      try {
        for await (const _ of events);
      } catch (err) {
        reject(err); // a no-op once opened
      }
    })();
  });
}

describe('order event streams: the per-replica cap and the open-streams gauge', () => {
  let e2e: E2eStack;
  let api: XchainClient;
  const held: (() => void)[] = [];

  /** A gauge's value as the gateway serves it on /metrics. */
  const gauge = async (name: string) => {
    const text = await (await fetch(`${e2e.gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  const gaugeBecomes = (name: string, want: number) =>
    untilHolds(
      `${name} at ${want}`,
      () => gauge(name),
      (v) => v === want,
      { timeoutMs: 10_000, everyMs: 50 },
    );

  beforeAll(async () => {
    // The caller's own cap is above the replica's, so it is the replica's that refuses.
    e2e = await startE2eStack({ SSE_MAX_STREAMS_PER_REPLICA: '3', SSE_MAX_STREAMS_PER_CALLER: '10' });
    api = gatewayClient(e2e.gatewayUrl);
  });
  afterAll(async () => {
    for (const close of held) close();
    await e2e?.stop();
  });

  it('opens streams up to the cap, refuses the next with 503 STREAMS_EXHAUSTED and Retry-After, and admits one again once one closes', async () => {
    const hash = crossChainOf(await api.getQuote({ ...USDC_ETH_TO_ARB, recipient: EVM_USER, refund_address: EVM_REFUND })).quote_hash;
    expect(await gauge('sse_streams_open')).toBe(0);
    expect(await gauge('sse_streams_max')).toBe(3);

    for (let i = 0; i < 3; i++) held.push(await openStream(api, hash));
    expect(await gauge('sse_streams_open')).toBe(3);

    const refused = await expectApiError(openStream(api, hash), {
      http: 503,
      code: 14,
      reason: 'STREAMS_EXHAUSTED',
      metadata: { max_streams: '3' },
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.retryAfterSecs).toBe(5);
    expect(await gauge('sse_streams_open')).toBe(3); // the refusal holds nothing

    // The gateway counts a stream down when it sees the client go: wait for that, then one more fits.
    held.shift()!();
    expect(await gaugeBecomes('sse_streams_open', 2)).toBe(2);
    held.push(await openStream(api, hash));
    expect(await gauge('sse_streams_open')).toBe(3);
    await expectApiError(openStream(api, hash), { http: 503, reason: 'STREAMS_EXHAUSTED' });
  });
});

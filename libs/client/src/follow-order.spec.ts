import { XchainClient } from './client';
import { XchainTimeoutError } from './errors';
import { followOrder } from './gasless-flow';
import { serve } from './testing';

const HASH = `0x${'cd'.repeat(32)}`;
const view = (status: string) => ({
  quote_hash: HASH,
  status,
  terminal: ['fulfilled', 'refunded', 'expired', 'failed'].includes(status),
  src_chain: 'base',
  dst_chain: 'arbitrum',
  src_token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  amount_in: '1000000',
  amount_out: '990000',
  min_amount_out: '985000',
  quoted_at: '2026-11-23T10:00:00Z',
  expires_at: '2026-11-23T10:30:00Z',
  retained_until: '2026-11-30T10:00:00Z',
});

describe('followOrder', () => {
  it('follows the events until a final view, reopening a dropped stream from its last event', async () => {
    let opened = 0;
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first stream ends before the order is final; the second carries the fill.
      if (opened++ === 0) res.end(`id: e1\nevent: order\ndata: ${JSON.stringify(view('deposited'))}\n\n`);
      else res.end(`id: e2\nevent: order\ndata: ${JSON.stringify(view('fulfilled'))}\n\n`);
    });
    try {
      const seen: string[] = [];
      const order = await followOrder(new XchainClient({ baseUrl: s.url }), HASH, {
        pollIntervalMs: 10,
        onUpdate: (v) => seen.push(v.status),
      });
      expect(order).toMatchObject({ status: 'fulfilled', terminal: true });
      expect(seen).toEqual(['deposited', 'fulfilled']);
      expect(s.seen.map((r) => r.headers['last-event-id'])).toEqual([undefined, 'e1']);
    } finally {
      await s.close();
    }
  });

  it('polls GetOrder until the view is final', async () => {
    const answers = ['quoted', 'deposited', 'refunded'];
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(view(answers.shift() ?? 'quoted')));
    });
    try {
      const order = await followOrder(new XchainClient({ baseUrl: s.url }), HASH, { via: 'poll', pollIntervalMs: 10 });
      expect(order).toMatchObject({ status: 'refunded', terminal: true });
      expect(s.seen.map((r) => r.url)).toEqual(Array(3).fill(`/json/v1/orders/${HASH}`));
    } finally {
      await s.close();
    }
  });

  it('stops at a failed relay (D18), a final view with its reason, over events as over polling', async () => {
    const failed = {
      ...view('failed'),
      failure: { reason: 'SIMULATION_REVERTED', message: 'SIMULATION_REVERTED: Error(TRANSFER_FROM_FAILED)', at: '2026-11-23T10:01:00Z' },
    };
    const s = await serve((req, res) => {
      if (req.url?.endsWith('/events')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: e1\nevent: order\ndata: ${JSON.stringify(view('quoted'))}\n\n`);
        res.end(`id: e2\nevent: order\ndata: ${JSON.stringify(failed)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(failed));
      }
    });
    try {
      const api = new XchainClient({ baseUrl: s.url });
      for (const via of ['events', 'poll'] as const) {
        const order = await followOrder(api, HASH, { via, pollIntervalMs: 10 });
        expect(order).toMatchObject({ status: 'failed', terminal: true, failure: { reason: 'SIMULATION_REVERTED' } });
      }
    } finally {
      await s.close();
    }
  });

  it('gives up with an XchainTimeoutError after timeoutMs, and with the reason of an aborted signal', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(view('deposited')));
    });
    try {
      const api = new XchainClient({ baseUrl: s.url });
      const timedOut = followOrder(api, HASH, { via: 'poll', pollIntervalMs: 20, timeoutMs: 200 });
      await expect(timedOut).rejects.toBeInstanceOf(XchainTimeoutError);
      const abort = new AbortController();
      const stopped = followOrder(api, HASH, { via: 'poll', pollIntervalMs: 20, signal: abort.signal });
      abort.abort(new Error('the user closed the page'));
      await expect(stopped).rejects.toThrow('the user closed the page');
    } finally {
      await s.close();
    }
  });
});

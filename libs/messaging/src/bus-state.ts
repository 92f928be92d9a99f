import type { NatsConnection } from '@nats-io/transport-node';

interface BusState {
  down: boolean;
}

const states = new WeakMap<NatsConnection, BusState>();

/**
 * Whether the connection is known to be down: the client saw it disconnect (or go stale) and has
 * not reconnected yet. A request then fails at once with 503 instead of waiting out its deadline
 * for a reply that cannot come (the client only buffers it for the reconnect).
 */
export function busDown(nc: NatsConnection): boolean {
  let state = states.get(nc);
  if (!state) {
    const s: BusState = { down: false };
    states.set(nc, s);
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect' || status.type === 'staleConnection') s.down = true;
        else if (status.type === 'reconnect') s.down = false;
      }
    })().catch(() => undefined);
    state = s;
  }
  return state.down;
}

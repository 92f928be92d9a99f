import { useEffect, useState } from 'preact/hooks';
import type { XchainClient } from '@xchain/client';
import { type OrderView, errorText, isNotFound } from '../shared/api';

export type OrderState =
  | { kind: 'loading' }
  | { kind: 'found'; order: OrderView; live: boolean }
  | { kind: 'transaction'; orders: OrderView[] }
  | { kind: 'not-found' }
  | { kind: 'error'; message: string };

/**
 * An order by its quote hash, kept current by its event stream until it is final; a hash that is
 * no quote is tried as a transaction (deposit, fill or refund) instead.
 */
export function useOrder(api: XchainClient, hash: string, asTransactionOnly = false): OrderState {
  const [state, setState] = useState<OrderState>({ kind: 'loading' });
  useEffect(() => {
    const stop = new AbortController();
    const follow = async (first: OrderView) => {
      setState({ kind: 'found', order: first, live: !first.terminal });
      let lastEventId: string | undefined;
      let terminal = first.terminal;
      while (!terminal && !stop.signal.aborted) {
        try {
          for await (const ev of api.streamOrderEvents(first.quote_hash, {
            signal: stop.signal,
            ...(lastEventId ? { lastEventId } : {}),
          })) {
            lastEventId = ev.id ?? lastEventId;
            terminal = ev.order.terminal;
            setState({ kind: 'found', order: ev.order, live: !terminal });
            if (terminal) break;
          }
        } catch {
          if (stop.signal.aborted) return;
        }
        // The server ends a stream after a while, or it dropped: open it again shortly.
        if (!terminal) await new Promise((r) => setTimeout(r, 1000));
      }
    };
    (async () => {
      try {
        if (!asTransactionOnly) {
          try {
            await follow(await api.getOrder({ quote_hash: hash }, { signal: stop.signal }));
            return;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        const { orders } = await api.findOrdersByTransaction({ tx_hash: hash }, { signal: stop.signal });
        if (orders.length === 1) await follow(orders[0]!);
        else setState(orders.length === 0 ? { kind: 'not-found' } : { kind: 'transaction', orders });
      } catch (err) {
        if (!stop.signal.aborted) setState(isNotFound(err) ? { kind: 'not-found' } : { kind: 'error', message: errorText(err) });
      }
    })();
    return () => stop.abort();
  }, [api, hash, asTransactionOnly]);
  return state;
}

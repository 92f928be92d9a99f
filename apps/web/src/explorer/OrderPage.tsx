import type { XchainClient } from '@xchain/client';
import { Notice } from '../shared/components';
import type { Registry } from '../shared/registry';
import { OrderDetails } from './OrderDetails';
import { OrderTable } from './OrderTable';
import { useOrder } from './useOrder';

interface Props {
  api: XchainClient;
  registry: Registry | undefined;
  hash: string;
}

/** `/explorer/order/<hash>`: the order of a quote hash, or the order(s) of a transaction hash. */
export function OrderPage({ api, registry, hash }: Props) {
  return <Lookup state={useOrder(api, hash)} registry={registry} what={hash} />;
}

export function Lookup({ state, registry, what }: { state: ReturnType<typeof useOrder>; registry: Registry | undefined; what: string }) {
  switch (state.kind) {
    case 'loading':
      return <p class="loading">Looking the order up…</p>;
    case 'found':
      return <OrderDetails order={state.order} live={state.live} registry={registry} />;
    case 'transaction':
      return (
        <section>
          <h1>Orders of transaction</h1>
          <p class="mono hash">{what}</p>
          <OrderTable orders={state.orders} registry={registry} />
        </section>
      );
    case 'not-found':
      return (
        <section class="not-found">
          <h1>Not found</h1>
          <p>
            No order has the quote hash or transaction <span class="mono hash">{what}</span>. A quote is kept for a while after it expires;
            an order appears here once it is quoted, and a transaction once the chain confirmed it.
          </p>
        </section>
      );
    case 'error':
      return <Notice kind="error">The order could not be read: {state.message}. Try again in a moment.</Notice>;
  }
}

import { Amount, StatusBadge, When } from '../shared/components';
import type { OrderView } from '../shared/api';
import type { Registry } from '../shared/registry';
import { onLinkClick } from '../shared/router';

/** Orders as rows: when, status, route and amounts, each linked to its explorer page (`external`: from another page, a full load). */
export function OrderTable({
  orders,
  registry,
  external = false,
}: {
  orders: OrderView[];
  registry: Registry | undefined;
  external?: boolean;
}) {
  if (orders.length === 0) return <p>No orders.</p>;
  return (
    <div class="table-wrap">
      <table class="orders">
        <thead>
          <tr>
            <th scope="col">Quoted</th>
            <th scope="col">Status</th>
            <th scope="col">Route</th>
            <th scope="col">Sent</th>
            <th scope="col">Receives</th>
            <th scope="col">Order</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.quote_hash}>
              <td>
                <When at={o.quoted_at} />
              </td>
              <td>
                <StatusBadge status={o.status} />
              </td>
              <td>
                {o.src_chain} → {o.dst_chain}
              </td>
              <td>
                <Amount registry={registry} chain={o.src_chain} token={o.src_token} amount={o.amount_in} />
              </td>
              <td>
                <Amount registry={registry} chain={o.dst_chain} token={o.dst_token} amount={o.amount_out} />
              </td>
              <td>
                <a class="mono" href={`/explorer/order/${o.quote_hash}`} onClick={external ? undefined : onLinkClick}>
                  {`${o.quote_hash.slice(0, 10)}…${o.quote_hash.slice(-6)}`}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

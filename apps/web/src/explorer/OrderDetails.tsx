import { Amount, StatusBadge, TxLink, When } from '../shared/components';
import type { OrderView } from '../shared/api';
import { type Registry } from '../shared/registry';
import { formatDuration, formatUnits, formatUsdMicros } from '../shared/units';
import { refundReasonText, secondsTaken, timelineOf } from './timeline';

const FEE_NAMES: Readonly<Record<string, string>> = {
  protocol_fee: 'Protocol fee',
  swap_fee: 'Swap pools',
  dst_gas: 'Destination gas',
  gas_drop: 'Gas drop (native delivered)',
  referrer_fee: 'Referrer fee',
  sponsor_gas: 'Relay gas (gasless)',
  keyless_spread: 'Spread without an API key',
};

interface Props {
  order: OrderView;
  live: boolean;
  registry: Registry | undefined;
}

/** One order: its terms, timeline, time taken against the promise, fees and, once final, where the money went. */
export function OrderDetails({ order, live, registry }: Props) {
  const src = (amount: string) => <Amount registry={registry} chain={order.src_chain} token={order.src_token} amount={amount} />;
  const dst = (amount: string) => <Amount registry={registry} chain={order.dst_chain} token={order.dst_token} amount={amount} />;
  const native = (chain: string, amount: string) => {
    const c = registry?.chain(chain);
    return c ? `${formatUnits(amount, c.native_decimals)} ${c.native_symbol}` : `${amount} base units`;
  };
  const taken = secondsTaken(order);
  const promised = order.fulfill_eta_secs;
  const refund = order.refund;
  const decidedRefund = !refund && order.settlement?.decision === 'refund' ? order.settlement.reason : undefined;
  return (
    <article class="order" aria-labelledby="order-title">
      <h1 id="order-title">
        Order <StatusBadge status={order.status} />
      </h1>
      <p class="mono hash" data-testid="quote-hash">
        {order.quote_hash}
      </p>
      <p class="live" role="status" aria-live="polite">
        {live ? 'Live: this page updates by itself as the order moves.' : order.terminal ? 'Final.' : ''}
      </p>

      <section aria-labelledby="terms">
        <h2 id="terms">Terms</h2>
        <dl class="facts">
          <dt>Sends</dt>
          <dd>
            {src(order.amount_in)} on {order.src_chain}
          </dd>
          <dt>Receives</dt>
          <dd>
            {dst(order.amount_out)} on {order.dst_chain} (at least {dst(order.min_amount_out)})
          </dd>
          <dt>Price valid until</dt>
          <dd>
            <When at={order.expires_at} />
          </dd>
          <dt>Deposit honoured until</dt>
          <dd>
            <When at={order.retained_until} />
          </dd>
        </dl>
      </section>

      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol class="timeline">
          {timelineOf(order).map((s) => (
            <li key={s.key} class={s.done ? 'done' : 'pending'} data-step={s.key}>
              <span class="step-label">{s.label}</span>
              {!s.done && <span class="step-wait"> — waiting</span>}
              {s.detail && s.key !== 'refunded' && <span class="step-detail"> ({s.detail})</span>}
              <div class="step-facts">
                {s.at && <When at={s.at} />}
                {s.chain && <span class="chain">{s.chain}</span>}
                {s.tx && <TxLink registry={registry} chain={s.chain ?? order.src_chain} tx={s.tx} />}
              </div>
            </li>
          ))}
        </ol>
        {refund && (
          <p class="refund-reason" data-testid="refund-reason">
            <strong>Why it was refunded:</strong> {refundReasonText(refund.reason)} {refund.amount && <>Returned: {src(refund.amount)}.</>}
          </p>
        )}
        {decidedRefund && (
          <p class="refund-reason" data-testid="refund-reason">
            <strong>Being refunded:</strong> {refundReasonText(decidedRefund)}
          </p>
        )}
        {order.failure && (
          <p class="refund-reason">
            <strong>Why it failed:</strong> {order.failure.message}
          </p>
        )}
        {order.fulfillment?.destination_call && (
          <p data-testid="destination-call">
            <strong>Destination call</strong> to <span class="mono hash">{order.fulfillment.destination_call.target}</span>:{' '}
            {order.fulfillment.destination_call.status === 'executed'
              ? 'it ran and got the tokens.'
              : 'it reverted, so the tokens went to the recipient instead.'}
          </p>
        )}
      </section>

      <section aria-labelledby="eta">
        <h2 id="eta">Time to fill</h2>
        <dl class="facts">
          <dt>Promised</dt>
          <dd>{promised ? formatDuration(Number(promised)) : 'no estimate when quoted'}</dd>
          <dt>Taken</dt>
          <dd data-testid="time-taken">
            {taken !== undefined ? formatDuration(taken) : order.deposit ? 'still running' : 'not deposited yet'}
          </dd>
        </dl>
      </section>

      {order.fee_breakdown && (
        <section aria-labelledby="fees">
          <h2 id="fees">Fees</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Fee</th>
                  <th scope="col">Paid in</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {order.fee_breakdown.components.map((c) => (
                  <tr key={`${c.name}-${c.side}`}>
                    <td>{FEE_NAMES[c.name] ?? c.name}</td>
                    <td>{c.side === 'src' ? order.src_chain : order.dst_chain}</td>
                    <td>
                      {c.name === 'gas_drop'
                        ? native(order.dst_chain, c.native)
                        : c.side === 'src'
                          ? src(c.charged ?? c.native)
                          : dst(c.charged ?? c.native)}
                    </td>
                    <td>{formatUsdMicros(c.usd_micros)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}

      {order.accounting && (
        <section aria-labelledby="accounting">
          <h2 id="accounting">Where the money went</h2>
          <dl class="facts" data-testid="accounting">
            <dt>Put in</dt>
            <dd>{src(order.accounting.amount_in)}</dd>
            <dt>Received</dt>
            <dd>{dst(order.accounting.received)}</dd>
            <dt>Refunded</dt>
            <dd>{src(order.accounting.refunded)}</dd>
            <dt>Fees on {order.src_chain}</dt>
            <dd>{src(order.accounting.src_fees)}</dd>
            <dt>Fees on {order.dst_chain}</dt>
            <dd>{dst(order.accounting.dst_fees)}</dd>
            <dt>Adds up</dt>
            <dd>{order.accounting.reconciled ? 'yes, to the unit' : 'no'}</dd>
          </dl>
        </section>
      )}
    </article>
  );
}

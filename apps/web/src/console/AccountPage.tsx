import { Notice, When } from '../shared/components';
import { formatUnits, formatUsdMicros } from '../shared/units';
import { type PageProps, useLoad } from './load';

/** The account: email, keys allowed, the sponsorship balance and its ledger. */
export function AccountPage({ api, onAuthError }: PageProps) {
  const [data] = useLoad(
    () => Promise.all([api.getPartner(), api.getPartnerFunding(), api.listPartnerFundingEntries({ page_size: 50 })]),
    onAuthError,
    [api],
  );
  if (data.state === 'loading') return <p class="loading">Reading the account…</p>;
  if (data.state === 'error') return <Notice kind="error">The account could not be read: {data.message}</Notice>;
  const [me, funding, { entries }] = data.value;
  const tiers = [...new Set(me.keys.filter((k) => !k.disabled).map((k) => k.tier))];
  return (
    <>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{me.email}</dd>
        <dt>Tier</dt>
        <dd>{tiers.length ? tiers.join(', ') : 'no active API key'}</dd>
        <dt>API keys</dt>
        <dd>
          {me.keys.length} of {me.max_keys}
        </dd>
        <dt>Funding balance</dt>
        <dd data-testid="balance">{formatUsdMicros(funding.balance_usd_micros)}</dd>
        <dt>Funding chain</dt>
        <dd>
          {funding.chain} (router <span class="mono hash">{funding.router_address}</span>)
        </dd>
      </dl>
      {funding.balances.length > 0 && (
        <>
          <h2>Deposited tokens</h2>
          <ul>
            {funding.balances.map((b) => (
              <li key={`${b.token.chain}:${b.token.address}`}>
                {formatUnits(b.amount, b.token.decimals)} {b.token.symbol} ({formatUsdMicros(b.usd_micros)})
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Ledger entries</h2>
      {entries.length === 0 ? (
        <p>No entries yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Change</th>
                <th scope="col">Balance after</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When at={e.created_at} />
                  </td>
                  <td>{e.kind}</td>
                  <td>{formatUsdMicros(e.delta_usd_micros)}</td>
                  <td>{formatUsdMicros(e.balance_usd_micros)}</td>
                  <td>{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

import { Notice, When } from '../shared/components';
import { formatUnits } from '../shared/units';
import { type PageProps, useLoad } from './load';

/** Vouchers issued to the partner, and referral earnings grouped by referrer, chain and token. */
export function ReferralsPage({ api, onAuthError }: PageProps) {
  const [data] = useLoad(() => Promise.all([api.listPartnerVouchers(), api.getPartnerReferrals()]), onAuthError, [api]);
  if (data.state === 'loading') return <p class="loading">Reading vouchers and referrals…</p>;
  if (data.state === 'error') return <Notice kind="error">They could not be read: {data.message}</Notice>;
  const [{ vouchers }, { groups }] = data.value;
  return (
    <>
      <h2>Vouchers</h2>
      {vouchers.length === 0 ? (
        <p>No vouchers.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Chain</th>
                <th scope="col">Amount</th>
                <th scope="col">Referrer</th>
                <th scope="col">Redeemed</th>
              </tr>
            </thead>
            <tbody>
              {vouchers.map((v) => (
                <tr key={v.id}>
                  <td>
                    <When at={v.created_at} />
                  </td>
                  <td>{v.chain}</td>
                  <td>
                    {formatUnits(v.amount, v.decimals)} {v.token_symbol}
                  </td>
                  <td class="mono hash">{v.referrer}</td>
                  <td>{v.redeemed ? v.redeemed_at ? <When at={v.redeemed_at} /> : 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Referral earnings</h2>
      {groups.length === 0 ? (
        <p>No referral earnings yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Referrer</th>
                <th scope="col">Chain</th>
                <th scope="col">Earned</th>
                <th scope="col">Orders</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={`${g.referrer}:${g.chain}:${g.token}`}>
                  <td class="mono hash">{g.referrer}</td>
                  <td>{g.chain}</td>
                  <td>
                    {formatUnits(g.amount, g.decimals)} {g.token_symbol}
                  </td>
                  <td>{g.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

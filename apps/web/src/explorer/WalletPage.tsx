import { useEffect, useState } from 'preact/hooks';
import type { XchainClient } from '@xchain/client';
import { type OrderView, errorText } from '../shared/api';
import { Notice } from '../shared/components';
import type { Registry } from '../shared/registry';
import { navigate } from '../shared/router';
import { OrderTable } from './OrderTable';

const STATUSES = ['quoted', 'deposited', 'fulfilled', 'refunded', 'expired', 'failed'] as const;
type Status = (typeof STATUSES)[number];
const PAGE_SIZE = 20;

interface Props {
  api: XchainClient;
  registry: Registry | undefined;
  address: string;
  /** `status=…&chain=…` from the URL, so a filtered list can be shared. */
  query: string;
}

/** `/explorer/address/<address>`: the orders a wallet made, receives or is refunded, newest first, a page at a time. */
export function WalletPage({ api, registry, address, query }: Props) {
  const params = new URLSearchParams(query);
  const status = STATUSES.find((s) => s === params.get('status'));
  const chain = params.get('chain') ?? '';
  // Cursors of the pages seen so far: the last is the current page's ('' for the first).
  const [cursors, setCursors] = useState<string[]>(['']);
  const [page, setPage] = useState<{ orders: OrderView[]; next: string } | { error: string }>();
  const cursor = cursors.at(-1) ?? '';

  useEffect(() => setCursors(['']), [address, status, chain]);
  useEffect(() => {
    const stop = new AbortController();
    setPage(undefined);
    api
      .listOrders(
        { address, page_size: PAGE_SIZE, ...(status ? { status } : {}), ...(chain ? { chain } : {}), ...(cursor ? { cursor } : {}) },
        { signal: stop.signal },
      )
      .then(
        (r) => setPage({ orders: r.orders, next: r.next_cursor }),
        (err: unknown) => !stop.signal.aborted && setPage({ error: errorText(err) }),
      );
    return () => stop.abort();
  }, [api, address, status, chain, cursor]);

  const filter = (next: { status?: string; chain?: string }) => {
    const p = new URLSearchParams();
    const s = next.status ?? status ?? '';
    const c = next.chain ?? chain;
    if (s) p.set('status', s);
    if (c) p.set('chain', c);
    const qs = p.toString();
    navigate(`/explorer/address/${encodeURIComponent(address)}${qs ? `?${qs}` : ''}`, true);
  };

  return (
    <section aria-labelledby="wallet-title">
      <h1 id="wallet-title">Wallet</h1>
      <p class="mono hash">{address}</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => filter({ status: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">any</option>
            {STATUSES.map((s: Status) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Chain
          <select value={chain} onChange={(e) => filter({ chain: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">any</option>
            {(registry?.chains ?? []).map((c) => (
              <option key={c.chain} value={c.chain}>
                {c.chain}
              </option>
            ))}
          </select>
        </label>
      </form>
      {!page && <p class="loading">Reading the orders…</p>}
      {page && 'error' in page && <Notice kind="error">The orders could not be read: {page.error}</Notice>}
      {page && 'orders' in page && (
        <>
          <OrderTable orders={page.orders} registry={registry} />
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <span>Page {cursors.length}</span>
            <button type="button" disabled={!page.next} onClick={() => setCursors([...cursors, page.next])}>
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { errorText } from '../shared/api';
import { Notice } from '../shared/components';
import { OrderTable } from '../explorer/OrderTable';
import { type PageProps, useLoad } from './load';

const STATUSES = ['quoted', 'deposited', 'fulfilled', 'refunded', 'expired', 'failed'] as const;
type Status = (typeof STATUSES)[number];

/** The partner's orders (quoted with its keys), filtered, a page at a time, and as a CSV file. */
export function OrdersPage({ api, registry, onAuthError }: PageProps) {
  const [status, setStatus] = useState<Status | ''>('');
  const [chain, setChain] = useState('');
  const [cursors, setCursors] = useState<string[]>(['']);
  const [problem, setProblem] = useState('');
  const cursor = cursors.at(-1) ?? '';
  const filters = { ...(status ? { status } : {}), ...(chain ? { chain } : {}) };
  const [page] = useLoad(() => api.listPartnerOrders({ ...filters, page_size: 20, ...(cursor ? { cursor } : {}) }), onAuthError, [
    api,
    status,
    chain,
    cursor,
  ]);

  const download = async () => {
    setProblem('');
    try {
      const { csv, nextCursor } = await api.exportPartnerOrders(filters, { timeoutMs: 60_000 });
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'orders.csv';
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      if (nextCursor) setProblem('The file holds the first part only (the export row limit): narrow the filters for the rest.');
    } catch (err) {
      setProblem(`The CSV could not be made: ${errorText(err)}`);
      onAuthError(err);
    }
  };

  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={status}
            onChange={(e) => (setStatus((e.currentTarget as HTMLSelectElement).value as Status | ''), setCursors(['']))}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Chain
          <select value={chain} onChange={(e) => (setChain((e.currentTarget as HTMLSelectElement).value), setCursors(['']))}>
            <option value="">any</option>
            {(registry?.chains ?? []).map((c) => (
              <option key={c.chain} value={c.chain}>
                {c.chain}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={download}>
          Download CSV
        </button>
      </form>
      {problem && <Notice kind="error">{problem}</Notice>}
      {page.state === 'loading' && <p class="loading">Reading the orders…</p>}
      {page.state === 'error' && <Notice kind="error">The orders could not be read: {page.message}</Notice>}
      {page.state === 'ok' && (
        <>
          <OrderTable orders={page.value.orders} registry={registry} external />
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <span>Page {cursors.length}</span>
            <button type="button" disabled={!page.value.next_cursor} onClick={() => setCursors([...cursors, page.value.next_cursor])}>
              Older
            </button>
          </nav>
        </>
      )}
    </>
  );
}

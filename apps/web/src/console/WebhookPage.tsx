import { useState } from 'preact/hooks';
import { errorText, isNotFound } from '../shared/api';
import { Notice, StatusBadge, When } from '../shared/components';
import { type PageProps, useLoad } from './load';

/** The webhook: set it (the signing secret shown once), remove it, and its recent deliveries. */
export function WebhookPage({ api, onAuthError }: PageProps) {
  const [hook, reload] = useLoad(
    async () => {
      const [current, { deliveries }] = await Promise.all([
        api.getPartnerWebhook().catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        }),
        api.listPartnerWebhookDeliveries({ page_size: 50 }),
      ]);
      return { current, deliveries };
    },
    onAuthError,
    [api],
  );
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [problem, setProblem] = useState('');
  const act = async (what: () => Promise<unknown>) => {
    setProblem('');
    try {
      await what();
      reload();
    } catch (err) {
      setProblem(errorText(err));
      onAuthError(err);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void act(async () => setSecret((await api.setPartnerWebhook({ url: url.trim() })).secret));
  };
  return (
    <>
      {hook.state === 'ok' && (
        <p data-testid="webhook-url">
          {hook.value.current ? (
            <>
              Events go to <span class="mono hash">{hook.value.current.url}</span> (set <When at={hook.value.current.created_at} />
              ).
            </>
          ) : (
            'No webhook is set.'
          )}
        </p>
      )}
      <form class="inline-form" onSubmit={save}>
        <label for="hook-url">
          Endpoint URL (https)
          <input id="hook-url" type="url" required value={url} onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Set webhook</button>
        {hook.state === 'ok' && hook.value.current && (
          <button type="button" class="secondary" onClick={() => act(async () => (await api.deletePartnerWebhook(), setSecret('')))}>
            Remove webhook
          </button>
        )}
      </form>
      {secret && (
        <section aria-labelledby="hook-secret" class="secret">
          <h2 id="hook-secret">Signing secret</h2>
          <p>Shown once: check each delivery's x-xchain-signature with it. Setting the webhook again makes a new one.</p>
          <output class="mono" data-testid="webhook-secret">
            {secret}
          </output>
        </section>
      )}
      {problem && <Notice kind="error">{problem}</Notice>}
      <h2>Recent deliveries</h2>
      <button type="button" class="secondary" onClick={reload}>
        Refresh
      </button>
      {hook.state === 'loading' && <p class="loading">Reading the deliveries…</p>}
      {hook.state === 'error' && <Notice kind="error">The webhook could not be read: {hook.message}</Notice>}
      {hook.state === 'ok' &&
        (hook.value.deliveries.length === 0 ? (
          <p>No deliveries yet.</p>
        ) : (
          <div class="table-wrap">
            <table data-testid="deliveries">
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Order</th>
                  <th scope="col">Version</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Next retry</th>
                </tr>
              </thead>
              <tbody>
                {hook.value.deliveries.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <When at={d.created_at} />
                    </td>
                    <td>
                      <a class="mono" href={`/explorer/order/${d.quote_hash}`}>
                        {`${d.quote_hash.slice(0, 10)}…`}
                      </a>
                    </td>
                    <td>{d.version}</td>
                    <td>
                      <StatusBadge status={d.status} />
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ?? '—')}</td>
                    <td>{d.next_attempt_at ? <When at={d.next_attempt_at} /> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </>
  );
}

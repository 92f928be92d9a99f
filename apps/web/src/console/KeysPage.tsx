import { useState } from 'preact/hooks';
import { errorText } from '../shared/api';
import { Notice, When } from '../shared/components';
import { type PageProps, useLoad } from './load';

/** API keys: each with its tier and budget; create one (its secret shown once), disable one. */
export function KeysPage({ api, onAuthError }: PageProps) {
  const [me, reload] = useLoad(() => api.getPartner(), onAuthError, [api]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; secret: string }>();
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
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const r = await api.createPartnerKey({ name: name.trim() });
      setCreated({ name: r.key.name, secret: r.secret });
      setName('');
    });
  };
  return (
    <>
      <form class="inline-form" onSubmit={create}>
        <label for="key-name">
          New key's name
          <input id="key-name" required maxLength={64} value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create key</button>
      </form>
      {created && (
        <section aria-labelledby="new-key" class="secret">
          <h2 id="new-key">Key “{created.name}” created</h2>
          <p>Copy it now: it is shown only this once and cannot be read again.</p>
          <output class="mono" data-testid="new-key-secret">
            {created.secret}
          </output>
        </section>
      )}
      {problem && <Notice kind="error">{problem}</Notice>}
      {me.state === 'loading' && <p class="loading">Reading the keys…</p>}
      {me.state === 'error' && <Notice kind="error">The keys could not be read: {me.message}</Notice>}
      {me.state === 'ok' && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Tier</th>
                <th scope="col">Points per minute</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {me.value.keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td class="mono">{k.key}…</td>
                  <td>{k.tier}</td>
                  <td>{k.points_per_min}</td>
                  <td>
                    <When at={k.created_at} />
                  </td>
                  <td>
                    {k.disabled ? (
                      'disabled'
                    ) : (
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Disable key ${k.name}`}
                        onClick={() => act(() => api.disablePartnerKey({ id: k.id }))}
                      >
                        Disable
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            {me.value.keys.length} of {me.value.max_keys} keys.
          </p>
        </div>
      )}
    </>
  );
}

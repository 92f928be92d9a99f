import { useMemo, useState } from 'preact/hooks';
import { type XchainClient } from '@xchain/client';
import { apiClient, errorText, isUnauthenticated } from '../shared/api';
import { Notice } from '../shared/components';
import { useRegistry } from '../shared/registry';
import { navigate, onLinkClick, usePath } from '../shared/router';
import { AccountPage } from './AccountPage';
import { KeysPage } from './KeysPage';
import { OrdersPage } from './OrdersPage';
import { ReferralsPage } from './ReferralsPage';
import { storeToken, storedToken } from './session';
import { WebhookPage } from './WebhookPage';

const PAGES = [
  { path: 'account', title: 'Account' },
  { path: 'keys', title: 'API keys' },
  { path: 'webhook', title: 'Webhook' },
  { path: 'referrals', title: 'Vouchers and referrals' },
  { path: 'orders', title: 'Orders' },
] as const;

/** The partner console: sign in with a session token, then one page per part of the account. */
export function ConsoleApp() {
  const [token, setToken] = useState(storedToken());
  const [signedOut, setSignedOut] = useState('');
  const api = useMemo(() => (token ? apiClient(token) : undefined), [token]);
  const signOut = (message: string) => {
    storeToken(undefined);
    setToken(undefined);
    setSignedOut(message);
    navigate('/console/', true);
  };
  if (!api) return <SignIn message={signedOut} onSignedIn={(t) => (storeToken(t), setSignedOut(''), setToken(t))} />;
  return <Signed api={api} onSignOut={signOut} />;
}

function SignIn({ message, onSignedIn }: { message: string; onSignedIn: (token: string) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const token = text.trim();
    if (!token) return setProblem('Paste the session token partner-admin issued (xps_…).');
    setBusy(true);
    try {
      await apiClient(token).getPartner();
      onSignedIn(token);
    } catch (err) {
      setProblem(isUnauthenticated(err) ? 'This token is unknown, expired or signed out.' : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <h1>Partner console</h1>
      {message && <Notice kind="info">{message}</Notice>}
      <form class="inline-form" onSubmit={submit}>
        <label for="token">
          Session token
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="off"
            value={text}
            onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
            aria-describedby="token-help"
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p id="token-help" class="loading">
        The operator issues it with <code>npm run partner-admin -- issue-session --email …</code>. It stays in this tab only.
      </p>
      {problem && <Notice kind="error">{problem}</Notice>}
    </main>
  );
}

function Signed({ api, onSignOut }: { api: XchainClient; onSignOut: (message: string) => void }) {
  const path = usePath();
  const registry = useRegistry(api);
  const current = PAGES.find((p) => path.startsWith(`/console/${p.path}`)) ?? PAGES[0];
  const [problem, setProblem] = useState('');
  const signOut = async () => {
    try {
      const me = await api.getPartner();
      if (me.session_id) await api.revokePartnerSession({ id: me.session_id });
      onSignOut('Signed out: the session token no longer works.');
    } catch (err) {
      if (isUnauthenticated(err)) onSignOut('The session had already ended.');
      else setProblem(`Could not sign out: ${errorText(err)}`);
    }
  };
  /** Any page that meets a 401 ends the session here too. */
  const lost = (err: unknown) => {
    if (isUnauthenticated(err)) onSignOut('The session ended (expired or signed out elsewhere): sign in again.');
  };
  const props = { api, registry, onAuthError: lost };
  return (
    <>
      <header class="top">
        <a class="brand" href="/console/" onClick={onLinkClick}>
          xchain partner console
        </a>
        <nav class="console-nav" aria-label="Console">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={`/console/${p.path}`} onClick={onLinkClick} aria-current={p === current ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {problem && <Notice kind="error">{problem}</Notice>}
        <h1>{current.title}</h1>
        {current.path === 'account' && <AccountPage {...props} />}
        {current.path === 'keys' && <KeysPage {...props} />}
        {current.path === 'webhook' && <WebhookPage {...props} />}
        {current.path === 'referrals' && <ReferralsPage {...props} />}
        {current.path === 'orders' && <OrdersPage {...props} />}
      </main>
    </>
  );
}

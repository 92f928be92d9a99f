import { useMemo } from 'preact/hooks';
import { apiClient } from '../shared/api';
import { onLinkClick, usePath } from '../shared/router';
import { useRegistry } from '../shared/registry';
import { OrderPage } from './OrderPage';
import { SearchBox } from './SearchBox';
import { TransactionPage } from './TransactionPage';
import { WalletPage } from './WalletPage';

/** The order explorer: `/explorer/`, `/explorer/order/<hash>`, `/explorer/tx/<signature>`, `/explorer/address/<address>`. */
export function ExplorerApp() {
  const api = useMemo(() => apiClient(), []);
  const registry = useRegistry(api);
  const path = usePath();
  const [pathname = '', search = ''] = path.split('?');
  const [, , kind, arg] = pathname.split('/');
  const value = arg ? decodeURIComponent(arg) : '';
  let page;
  if (kind === 'order' && value) page = <OrderPage key={value} api={api} registry={registry} hash={value} />;
  else if (kind === 'tx' && value) page = <TransactionPage key={value} api={api} registry={registry} tx={value} />;
  else if (kind === 'address' && value) page = <WalletPage key={value} api={api} registry={registry} address={value} query={search} />;
  else
    page = (
      <section>
        <h1>Order explorer</h1>
        <p>Look an order up by its quote hash, its deposit or fill transaction, or the wallet that made it.</p>
      </section>
    );
  return (
    <>
      <header class="top">
        <a class="brand" href="/explorer/" onClick={onLinkClick}>
          xchain explorer
        </a>
        <SearchBox initial={kind && value ? value : ''} />
      </header>
      <main id="main">{page}</main>
    </>
  );
}

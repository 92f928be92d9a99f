import type { ComponentChildren } from 'preact';
import { type Registry, txUrl } from './registry';
import { formatUnits } from './units';

/** An amount of a token in its units with its symbol, or in base units with the address when the token is unknown. */
export function Amount({
  registry,
  chain,
  token,
  amount,
}: {
  registry: Registry | undefined;
  chain: string;
  token: string;
  amount: string;
}) {
  const info = registry?.token(chain, token);
  if (!info)
    return (
      <span class="amount">
        {amount} base units of {token}
      </span>
    );
  return (
    <span class="amount" title={`${amount} base units`}>
      {formatUnits(amount, info.decimals)} {info.symbol}
    </span>
  );
}

/** A transaction hash, linked to its chain's block explorer when the registry says where that is. */
export function TxLink({ registry, chain, tx }: { registry: Registry | undefined; chain: string; tx: string }) {
  const href = txUrl(registry, chain, tx);
  return href ? (
    <a class="mono hash" href={href} target="_blank" rel="noopener noreferrer">
      {tx}
    </a>
  ) : (
    <span class="mono hash">{tx}</span>
  );
}

/** A time as the reader's locale shows it, with the exact RFC 3339 value in a <time>. */
export function When({ at }: { at: string }) {
  const d = new Date(at);
  return <time dateTime={at}>{Number.isNaN(d.getTime()) ? at : d.toLocaleString()}</time>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.replace(/[^a-z_]/g, '')}`}>{status}</span>;
}

export function Notice({ kind, children }: { kind: 'error' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

import { isIP } from 'node:net';
import { RpcError, WEBHOOK_URL_MAX_CHARS } from '@xchain/contracts';
import { AddressGuard } from './address-guard';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const invalid = (description: string) => RpcError.invalidArgument([{ field: 'url', description }], 'INVALID_WEBHOOK_URL');

/**
 * The URL a partner may set: absolute https, no user or password (they would travel in every
 * request and show in logs), no fragment, at most 2048 characters. Plain http is accepted only for
 * 127.0.0.1/localhost and only when the local stack allows it. A host written as an IP address is
 * judged here; a name is judged at each delivery, on the addresses it resolves to then (a name can
 * change, so refusing at PUT time alone would prove nothing). Returns the normalised URL.
 */
export function parseWebhookUrl(raw: string, opts: { allowHttpLocalhost: boolean }): string {
  if (raw.length > WEBHOOK_URL_MAX_CHARS) throw invalid(`must be at most ${WEBHOOK_URL_MAX_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('is not an absolute URL');
  }
  const local = LOCAL_HOSTS.has(url.hostname);
  if (url.protocol === 'http:') {
    if (!(opts.allowHttpLocalhost && local)) throw invalid('must use https');
  } else if (url.protocol !== 'https:') {
    throw invalid('must use https');
  }
  if (url.username !== '' || url.password !== '') throw invalid('must not carry credentials (user or password)');
  if (url.hash !== '') throw invalid('must not carry a fragment');
  const guard = new AddressGuard(opts.allowHttpLocalhost);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !guard.allows(host)) throw invalid('points at a private, loopback or reserved address');
  if ((host === 'localhost' || host.endsWith('.localhost')) && !(opts.allowHttpLocalhost && local))
    throw invalid('points at a private, loopback or reserved address');
  if (url.href.length > WEBHOOK_URL_MAX_CHARS) throw invalid(`must be at most ${WEBHOOK_URL_MAX_CHARS} characters`);
  return url.href;
}

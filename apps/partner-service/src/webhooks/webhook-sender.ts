import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AddressGuard } from './address-guard';

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  statusCode?: number;
  /** Why it was not delivered (no answer, a refusal, a non-2xx status). */
  error?: string;
}

export type SendWebhook = (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;

const USER_AGENT = 'xchain-webhooks/1';

/**
 * One POST of a delivery, bounded by `timeoutMs` from DNS to the status line (what the receiver
 * answers after that is not waited for). Redirects are not followed: a 3xx is a failed attempt.
 * The host's addresses are checked by the guard before connecting, and only they are used.
 */
export function httpSender(guard: AddressGuard, timeoutMs: number): SendWebhook {
  const lookup = guard.lookup();
  return (url, body, headers) =>
    new Promise<SendResult>((resolve) => {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0 && !guard.allows(host)) {
        resolve({ ok: false, error: `refused: ${host} is a private address` });
        return;
      }
      let settled = false;
      const done = (r: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT },
        lookup,
        agent: false, // a fresh connection each time: no socket kept to a partner's host
      });
      const timer = setTimeout(() => {
        done({ ok: false, error: `no answer within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on('response', (res: IncomingMessage) => {
        const code = res.statusCode ?? 0;
        res.resume(); // drain and drop the body; only the status counts
        res.on('error', () => undefined);
        const ok = code >= 200 && code < 300;
        done({
          ok,
          statusCode: code,
          ...(ok ? {} : { error: code >= 300 && code < 400 ? `answered ${code}; redirects are not followed` : `answered ${code}` }),
        });
        req.destroy();
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        const refused = err.code === 'EPRIVATEADDRESS';
        done({ ok: false, error: refused ? `refused: ${err.message}` : `${err.code ? `${err.code}: ` : ''}${err.message}` });
      });
      req.end(body);
    });
}

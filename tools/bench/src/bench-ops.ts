import { BOUND, PREVIEW_REQUEST } from './bodies';
import type { RawRequestSpec } from './raw-http';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The operations a side-by-side bench can load (BENCH_OP), with the request each sends. */
export const OPS: Record<string, { label: string; path: string; body?: string }> = {
  preview: { label: 'PreviewQuote', path: '/json/v1/quote/preview', body: JSON.stringify(PREVIEW_REQUEST) },
  quote: { label: 'GetQuote', path: '/json/v1/quote', body: JSON.stringify({ ...PREVIEW_REQUEST, ...BOUND }) },
  tokens: { label: 'ListTokens', path: '/json/v1/tokens' },
  chains: { label: 'GetChains', path: '/json/v1/chains' },
};

export type Op = (typeof OPS)[string];

/** The operation BENCH_OP names (default PreviewQuote); an unknown name stops the bench. */
export function benchOp(name = process.env['BENCH_OP'] ?? 'preview'): Op {
  const op = OPS[name];
  if (!op) throw new Error(`BENCH_OP must be one of ${Object.keys(OPS).join(', ')}`);
  return op;
}

/** The request that loads `op` through the gateway at `gatewayUrl`. */
export function opRequest(gatewayUrl: string, op: Op): RawRequestSpec {
  return op.body
    ? { url: `${gatewayUrl}${op.path}`, method: 'POST', headers: JSON_HEADERS, body: op.body }
    : { url: `${gatewayUrl}${op.path}` };
}

/** Extra environment for one side's services, from `K=V,K=V` (BENCH_BEFORE_ENV, BENCH_AFTER_ENV). */
export function envOf(spec: string | undefined): NodeJS.ProcessEnv {
  return Object.fromEntries(
    (spec ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

import { StatusSchema } from '@xchain/contracts';

export interface ErrorView {
  http: number;
  code: number;
  reason?: string;
  metadata?: Record<string, string>;
  fields: string[];
}

/** POSTs JSON; returns the status and parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** The parts of a google.rpc.Status a test asserts on. */
export function errorView(status: number, body: unknown): ErrorView {
  const s = StatusSchema.parse(body);
  const info = s.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  const bad = s.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  return {
    http: status,
    code: s.code,
    ...(info && 'reason' in info ? { reason: info.reason } : {}),
    ...(info && 'metadata' in info && info.metadata ? { metadata: info.metadata } : {}),
    fields: bad && 'field_violations' in bad ? bad.field_violations.map((v) => v.field) : [],
  };
}

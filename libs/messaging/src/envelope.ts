import { RpcError, StatusSchema, type Status } from '@xchain/contracts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

export function okEnvelope(value: unknown): Uint8Array {
  return encodeJson({ ok: value });
}

export function errorEnvelope(status: Status): Uint8Array {
  return encodeJson({ error: status });
}

/** Unwraps a reply: the `ok` payload, or throws the peer's RpcError unchanged. */
export function openEnvelope(data: Uint8Array): unknown {
  const parsed = decodeJson(data) as Record<string, unknown> | null;
  if (parsed && typeof parsed === 'object' && 'ok' in parsed) return parsed['ok'];
  if (parsed && typeof parsed === 'object' && 'error' in parsed) {
    const status = StatusSchema.safeParse(parsed['error']);
    if (status.success) throw RpcError.fromStatus(status.data);
  }
  throw new Error('malformed reply envelope');
}

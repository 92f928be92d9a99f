import { RpcError, StatusSchema, type Status } from '@xchain/contracts';

const decoder = new TextDecoder();

/**
 * The value's JSON as UTF-8. Through `Buffer.from`, not a TextEncoder: TextEncoder gives every
 * call an ArrayBuffer of its own, where `Buffer.from` copies a short text into a slice of Node's
 * shared pool, which costs less per bus round trip. Every bus request and reply is encoded here.
 */
export function encodeJson(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

const OK_PREFIX = Buffer.from('{"ok":', 'utf8');
const CLOSING_BRACE = 0x7d;

/**
 * The `ok` payload of a reply as the bytes it was sent as (a view, not a copy), or undefined when
 * the reply is anything else (an error, or not `okEnvelope`'s shape).
 */
export function okPayloadBytes(data: Uint8Array): Uint8Array | undefined {
  const n = OK_PREFIX.length;
  if (data.length < n + 2 || data[data.length - 1] !== CLOSING_BRACE) return undefined;
  for (let i = 0; i < n; i++) if (data[i] !== OK_PREFIX[i]) return undefined;
  return data.subarray(n, data.length - 1);
}

/** `{"ok":<value>}`: the value's JSON between a fixed prefix and a closing brace (okPayloadBytes). */
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

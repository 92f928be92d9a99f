import { createHash } from 'node:crypto';
import { Code, RpcError, errorInfo, httpStatusOf, retryInfo, type CallerContext } from '@xchain/contracts';
import type { Logger } from '@xchain/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../http/caller';
import type { IdempotencyStore, StoredAnswer } from './idempotency-store';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** Printable ASCII (space to tilde), 1 to 255 characters: a UUID fits, and so does any key a client library makes. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** What a client told "in progress" waits before it tries again; the first request answers within its deadline. */
const IN_PROGRESS_RETRY_SECS = 1;

/** What happened to a request that carried a key; `fail_open` and `store_failed` mean Redis did not answer. */
export type { IdempotencyOutcome } from '../metrics/gateway-metrics';
import type { IdempotencyOutcome } from '../metrics/gateway-metrics';

/** The gateway's answer to a request: the bytes of a JSON value (`RpcClient.forward`) or the value itself. */
type Run = (req: FastifyRequest) => Promise<Buffer | unknown>;

export interface IdempotentRouteDeps {
  store: IdempotencyStore;
  log: Logger;
  onOutcome: (outcome: IdempotencyOutcome) => void;
}

/**
 * The route handler of an operation that takes an `Idempotency-Key` (the route calls it only when
 * the header is present: without it the request pays no Redis round-trip); with one, see docs/integrators.md "Idempotency". Answers
 * below 500 are stored and replayed for 24 h; a 5xx or a failure of the gateway itself gives the
 * key up, since the operation may not have run and a retry must run it (both operations are safe to
 * run again: GetQuote makes a new quote, the relayer takes an order once). When Redis does not
 * answer, the request runs without the guarantee (as the rate limits fail open), logged and counted.
 */
export function idempotentHandler(operationId: string, run: Run, validate: (req: FastifyRequest) => unknown, deps: IdempotentRouteDeps) {
  const { store, log, onOutcome } = deps;
  /** One warning per outage, not one per request: the counter has the rest. */
  let warned = false;
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined) return sendAnswer(reply, answerOf(await run(req)));
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (!VALID_KEY.test(key)) {
      throw RpcError.invalidArgument(
        [{ field: 'Idempotency-Key', description: 'must be 1 to 255 printable ASCII characters' }],
        'INVALID_IDEMPOTENCY_KEY',
      );
    }
    // A body that does not validate is refused before the key is claimed: nothing ran, nothing to remember.
    validate(req);
    const scoped = idempotencyKeyOf(callerOf(req), key);
    const fingerprint = fingerprintOf(operationId, req.body);
    let claim;
    try {
      claim = await store.claim(scoped, fingerprint);
    } catch (err) {
      onOutcome('fail_open');
      if (!warned)
        log.warn({ err: messageOf(err), operation: operationId }, 'idempotency store unavailable; requests run without replay protection');
      warned = true;
      return sendAnswer(reply, answerOf(await run(req)));
    }
    warned = false;
    switch (claim.kind) {
      case 'replay':
        onOutcome('replayed');
        reply.header(REPLAYED_HEADER, 'true');
        return sendAnswer(reply, claim.answer);
      case 'mismatch':
        onOutcome('key_reused');
        throw new RpcError(
          Code.ALREADY_EXISTS,
          `this Idempotency-Key was used for a different request (another body or operation) in the last 24 hours; use a new key for a new request`,
          [errorInfo('IDEMPOTENCY_KEY_REUSED', { operation: operationId })],
        );
      case 'in_progress':
        onOutcome('in_progress');
        throw new RpcError(Code.ALREADY_EXISTS, 'a request with this Idempotency-Key is still being processed; retry after a moment', [
          errorInfo('IDEMPOTENCY_REQUEST_IN_PROGRESS', { operation: operationId }),
          retryInfo(IN_PROGRESS_RETRY_SECS),
        ]);
      case 'claimed':
        break;
    }
    const { token } = claim;
    let answer: StoredAnswer;
    try {
      answer = answerOf(await run(req));
    } catch (err) {
      const status = err instanceof RpcError ? httpStatusOf(err.status.code) : 500;
      if (!(err instanceof RpcError) || status >= 500) {
        await store.release(scoped, token).catch((e: unknown) => storeFailed(e, 'release'));
        throw err;
      }
      answer = errorAnswer(err, status);
    }
    const stored = await store.complete(scoped, token, answer).catch((e: unknown) => storeFailed(e, 'complete'));
    if (stored === false)
      log.warn({ operation: operationId }, 'an idempotent answer was not stored: its claim had expired (IDEMPOTENCY_LEASE_MS)');
    onOutcome('executed');
    return sendAnswer(reply, answer);
  };

  function storeFailed(err: unknown, step: string): undefined {
    onOutcome('store_failed');
    if (warned) return undefined;
    warned = true;
    log.warn({ err: messageOf(err), operation: operationId, step }, 'idempotency store unavailable; the answer is not remembered');
    return undefined;
  }
}

/** The Redis key of an idempotency key: scoped by who calls, so no caller can see another's answers. */
export function idempotencyKeyOf(caller: CallerContext, key: string): string {
  const digest = createHash('sha256').update(key).digest('hex');
  switch (caller.kind) {
    case 'api_key':
    case 'partner_session':
      return `partner:${caller.partner_id}:${digest}`;
    case 'keyless':
      return `ip:${caller.client_ip}:${digest}`;
    case 'internal':
      return `service:${caller.service}:${digest}`;
  }
}

/** SHA-256 of the operation and the canonical JSON of the body (object keys sorted): key order and spacing do not matter. */
export function fingerprintOf(operationId: string, body: unknown): string {
  return createHash('sha256')
    .update(`${operationId}\n${canonicalJson(body)}`)
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const JSON_TYPE = 'application/json; charset=utf-8';

function answerOf(result: Buffer | unknown): StoredAnswer {
  const body = Buffer.isBuffer(result) ? result : Buffer.from(JSON.stringify(result));
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body };
}

function errorAnswer(err: RpcError, status: number): StoredAnswer {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE };
  const retry = err.status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
  if (retry && 'retry_delay' in retry) headers['retry-after'] = String(Math.ceil(parseFloat(retry.retry_delay)));
  return { status, headers, body: Buffer.from(JSON.stringify(err.status)) };
}

function sendAnswer(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  return reply.status(answer.status).headers(answer.headers).send(answer.body);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

import { RpcError } from '@xchain/contracts';

/** How long a client is told to wait before retrying while the database is away. */
export const DATABASE_RETRY_SECS = 2;

/**
 * Prisma's codes for "the database is not there": not reachable, timed out, connection closed,
 * pool timeout, too many connections. (P1008/P1017/P2037 are also what the pg driver adapter's
 * DatabaseNotReachable/SocketTimeout/ConnectionClosed/TooManyConnections become.)
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** The driver adapter's error kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'SocketTimeout', 'ConnectionClosed', 'TooManyConnections']);
/** Socket errors of node-postgres. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
/** SQLSTATEs: class 08 (connection exception), admin/crash shutdown, cannot connect now, too many connections. */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const MESSAGES = [
  /connection terminated/i,
  /can't reach database server/i,
  /timeout exceeded when trying to connect/i,
  /connection (?:to the database )?(?:was )?closed/i,
  /server closed the connection unexpectedly/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
];

/**
 * Whether `err` says the database cannot be reached (rather than that a query was wrong). Looks at
 * the error and what it wraps (cause, Prisma's meta and driver-adapter error, an AggregateError's
 * errors), so Prisma's own errors, the driver adapter's and node-postgres' all count.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: Array<{ value: unknown; depth: number }> = [{ value: err, depth: 0 }];
  while (queue.length > 0) {
    const { value, depth } = queue.shift()!;
    if (value === null || typeof value !== 'object' || seen.has(value) || depth > 6) continue;
    seen.add(value);
    const v = value as Record<string, unknown>;
    if (v['name'] === 'PrismaClientInitializationError') return true;
    for (const field of ['code', 'originalCode'] as const) {
      const code = v[field];
      if (typeof code === 'string' && (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATE.test(code))) return true;
    }
    if (typeof v['kind'] === 'string' && ADAPTER_KINDS.has(v['kind'])) return true;
    if (typeof v['message'] === 'string' && MESSAGES.some((m) => m.test((v['message'] as string).slice(0, 2000)))) return true;
    for (const next of [v['cause'], v['meta'], v['driverAdapterError'], v['originalError']]) queue.push({ value: next, depth: depth + 1 });
    if (Array.isArray(v['errors'])) for (const e of v['errors'].slice(0, 8)) queue.push({ value: e, depth: depth + 1 });
  }
  return false;
}

/** UNAVAILABLE / DATABASE_UNAVAILABLE with RetryInfo: what every operation answers while the database is away. */
export function databaseUnavailable(): RpcError {
  return RpcError.unavailable('the database is unavailable; retry shortly', 'DATABASE_UNAVAILABLE', DATABASE_RETRY_SECS);
}

/**
 * An error in one bounded line. Prisma's messages quote the call site over many lines and put the
 * reason last, so a multi-line message gives its last line.
 */
export function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const name = err instanceof Error ? `${err.name}: ` : '';
  return `${name}${lines[lines.length - 1] ?? ''}`.slice(0, 300);
}

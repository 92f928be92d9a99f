import { Code, RpcError } from '@xchain/contracts';
import { Counter, Histogram, register, type Registry } from 'prom-client';

/**
 * Bus metrics, on the process's one registry (prom-client's default, which the service-kit serves
 * at `/metrics`). Labels come from code only: a subject is a contract constant and an outcome is
 * `ok`, `timeout` or a google.rpc code name, so their number stays bounded whatever callers send.
 */

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const CODE_NAMES = new Map<number, string>(Object.entries(Code).map(([name, n]) => [n, name]));

/** The google.rpc code name of an error (`INTERNAL` for anything that is not an RpcError). */
export function codeNameOf(err: unknown): string {
  if (!(err instanceof RpcError)) return 'INTERNAL';
  return CODE_NAMES.get(err.status.code) ?? 'UNKNOWN';
}

/**
 * How a call ended, as the client saw it: `ok`, `timeout` when the peer did not answer within the
 * deadline (the transport's UPSTREAM_TIMEOUT, not a DEADLINE_EXCEEDED the peer itself reported),
 * else the code name of the error (UNAVAILABLE for "no responders", INVALID_ARGUMENT…).
 */
export function clientOutcomeOf(err: unknown): string {
  if (err === undefined) return 'ok';
  if (err instanceof RpcError && err.status.code === Code.DEADLINE_EXCEEDED && reasonOf(err) === 'UPSTREAM_TIMEOUT') return 'timeout';
  return codeNameOf(err);
}

function reasonOf(err: RpcError): string | undefined {
  for (const d of err.status.details) if (d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') return d.reason;
  return undefined;
}

/** A metric of `registry`, created on first use (a second RpcClient in the process shares it). */
function histogram(registry: Registry, name: string, help: string): Histogram<'subject' | 'outcome'> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<'subject' | 'outcome'>;
  return new Histogram({ name, help, labelNames: ['subject', 'outcome'], buckets: BUCKETS, registers: [registry] });
}

export interface BusMetrics {
  clientCalls: Histogram<'subject' | 'outcome'>;
  serverRequests: Histogram<'subject' | 'outcome'>;
  consumerMessages: Counter<'consumer' | 'outcome'>;
}

/** The bus metrics of `registry` (default: the process registry), created once. */
export function busMetrics(registry: Registry = register): BusMetrics {
  const consumerName = 'nats_consumer_messages_total';
  const consumer =
    (registry.getSingleMetric(consumerName) as Counter<'consumer' | 'outcome'> | undefined) ??
    new Counter({
      name: consumerName,
      help: 'JetStream messages handled by a durable consumer, by outcome (ack, drop, retry, malformed)',
      labelNames: ['consumer', 'outcome'],
      registers: [registry],
    });
  return {
    clientCalls: histogram(
      registry,
      'nats_client_request_duration_seconds',
      'NATS requests this process made, by subject and outcome (ok, timeout or the google.rpc code name)',
    ),
    serverRequests: histogram(
      registry,
      'nats_server_request_duration_seconds',
      'NATS requests this process served, by subject and outcome (ok or the google.rpc code name)',
    ),
    consumerMessages: consumer,
  };
}

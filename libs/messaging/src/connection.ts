import { connect, type NatsConnection } from '@nats-io/transport-node';
import { inboxPrefixOf } from '@xchain/contracts';

export type { NatsConnection, Subscription } from '@nats-io/transport-node';

export interface NatsOptions {
  url: string;
  name: string;
  /** Time allowed for the first connection before startup fails. */
  connectTimeoutMs: number;
  /**
   * The NATS user (D14): one per service and one for the operator tool, each allowed only its own
   * subjects. Replies to this connection's requests arrive under the user's own inbox prefix, the
   * only inbox it may subscribe to.
   */
  user: string;
  password: string;
  /**
   * Copies of each JetStream stream (and KV bucket) the services keep on this bus
   * (NATS_STREAM_REPLICAS): 3 on the three-member cluster, unset on a single server. Whatever creates or
   * checks a stream through this connection uses it (`streamReplicasOf`); unset, streams are
   * created with the server's default and their count is left alone.
   */
  streamReplicas?: number | undefined;
}

const replicasByConnection = new WeakMap<NatsConnection, number>();

/** The stream replica count this connection was opened with (`NatsOptions.streamReplicas`), if any. */
export function streamReplicasOf(nc: NatsConnection): number | undefined {
  return replicasByConnection.get(nc);
}

/**
 * Connects with endless reconnects: a NATS restart must not take a service down. `url` may list
 * several servers, comma-separated (the members of a cluster): the client picks one at random and,
 * when it goes away, reconnects to another (the members also tell it of each other).
 */
export async function connectNats(opts: NatsOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: opts.url
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== ''),
    name: opts.name,
    user: opts.user,
    pass: opts.password,
    inboxPrefix: inboxPrefixOf(opts.user),
    timeout: opts.connectTimeoutMs,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    // The client would otherwise build two Error objects (stack traces) per request up front, in
    // case it times out, a large share of the gateway's CPU under load. Our errors name the
    // subject and deadline instead (RpcClient maps every transport failure).
    noAsyncTraces: true,
  });
  if (opts.streamReplicas !== undefined) replicasByConnection.set(nc, opts.streamReplicas);
  return nc;
}

/** Readiness check: connected, and the server answers a round trip. */
export async function natsHealthy(nc: NatsConnection, timeoutMs = 1000): Promise<{ ok: boolean; detail?: string }> {
  if (nc.isClosed()) return { ok: false, detail: 'connection closed' };
  try {
    await Promise.race([nc.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error('flush timed out')), timeoutMs).unref())]);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: err instanceof Error ? err.message : 'unreachable' };
  }
}

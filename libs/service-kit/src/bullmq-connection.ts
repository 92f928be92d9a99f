/** Redis connection settings for BullMQ (queues and workers) from a `redis://[user:password@]host:port[/db]` URL. */
export function bullmqConnection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    // The service's own ACL user (D17); without one, Redis' `default` user.
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    // Workers block on Redis; BullMQ wants ioredis to keep retrying rather than fail a command.
    maxRetriesPerRequest: null,
  };
}

/** Redis connection settings for BullMQ (queues and workers) from a `redis://[:password@]host:port[/db]` URL. */
export function bullmqConnection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    // Workers block on Redis; BullMQ wants ioredis to keep retrying rather than fail a command.
    maxRetriesPerRequest: null,
  };
}

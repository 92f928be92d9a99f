/**
 * `work`, or what `onTimeout` gives (or throws) when `work` has not settled within `ms`. The timer
 * is cleared either way; `work` itself is not cancelled (its own transport timeout ends it).
 */
export async function withDeadline<T, D>(work: Promise<T>, ms: number, onTimeout: () => D): Promise<T | D> {
  const timedOut = Symbol('timed out');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  try {
    const got = await Promise.race([work, deadline]);
    return got === timedOut ? onTimeout() : (got as T);
  } finally {
    clearTimeout(timer);
  }
}

/** How `until` polls. */
export interface UntilOptions {
  /** How long to keep asking before failing; default 30 s. */
  timeoutMs?: number;
  /** The pause between two asks; default 50 ms. */
  everyMs?: number;
  /**
   * A probe that throws ends the wait at once with that error. By default a throw counts as
   * "not yet", and the last error is named if the deadline passes.
   */
  failOnError?: boolean;
  /** What the timeout message adds (what was seen instead), asked once the deadline has passed. */
  detail?: () => string;
}

/** The deadline of a wait passed. */
export class UntilTimeout extends Error {
  override name = 'UntilTimeout';
}

/**
 * Asks `probe` until it answers (anything but `undefined` or `false`) and returns the answer, or
 * fails naming what never came. Tests wait for a signal this way, not for a clock.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: UntilOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 50, failOnError = false, detail } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    let v: T | undefined | false;
    if (failOnError) v = await probe();
    else {
      try {
        v = await probe();
      } catch (err) {
        last = err;
        v = undefined;
      }
    }
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline)
      throw new UntilTimeout(
        `timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}${detail ? `; ${detail()}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Reads until `done` holds of the answer and returns that answer. A read that throws ends the wait
 * with its error; a deadline that passes names the last answer.
 */
export async function untilHolds<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  options: Omit<UntilOptions, 'failOnError'> = {},
): Promise<T> {
  let last: { v: T } | undefined;
  try {
    const held = await until(
      what,
      async () => {
        last = { v: await read() };
        return done(last.v) ? last : undefined;
      },
      { ...options, failOnError: true },
    );
    return held.v;
  } catch (err) {
    if (err instanceof UntilTimeout && last)
      throw new UntilTimeout(
        `${err.message}; last answer ${JSON.stringify(last.v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}`,
      );
    throw err;
  }
}

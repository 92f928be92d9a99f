/**
 * Integer searches for the smallest deposit whose output reaches a target, over a predicate that
 * is false then true as the deposit grows (the output is non-decreasing in the deposit). Each call
 * of `reaches` is one pass of the pipeline, so the searches count passes, not iterations.
 */

/** Most doublings and halvings a search may take; each is one pure forward pass. */
export const MAX_SEARCH_STEPS = 256;

/**
 * From a guess that turned out wrong (an inverse off by some units): steps away from it in doubling
 * strides until the answer is bracketed, then bisects the bracket. A guess off by d units costs
 * about 2·log₂(d) passes instead of a search over the whole range. `guessReaches` is what the
 * caller already knows of `reaches(guess)`. Undefined when no deposit within 2^MAX_SEARCH_STEPS
 * units above the guess reaches.
 */
export function gallopFrom(reaches: (amount: bigint) => boolean, guess: bigint, guessReaches: boolean): bigint | undefined {
  // Invariant once bracketed: reaches(hi) and not reaches(lo); 0 never reaches (no deposit, no output).
  let lo: bigint;
  let hi: bigint;
  let stride = 1n;
  if (guessReaches) {
    hi = guess;
    for (;;) {
      const a = hi > stride ? hi - stride : 0n;
      if (a === 0n || !reaches(a)) {
        lo = a;
        break;
      }
      hi = a;
      stride *= 2n;
    }
  } else {
    lo = guess;
    for (let steps = 0; ; steps++) {
      if (steps >= MAX_SEARCH_STEPS) return undefined;
      const a = lo + stride;
      if (reaches(a)) {
        hi = a;
        break;
      }
      lo = a;
      stride *= 2n;
    }
  }
  while (hi - lo > 1n) {
    const mid = (lo + hi) >> 1n;
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * With no usable guess (no inverse, or a pricer that is not monotone): doubles from `start` until
 * the target is reached, then bisects down from there, at most MAX_SEARCH_STEPS × 3 passes in all.
 * Undefined when MAX_SEARCH_STEPS doublings do not reach it.
 */
export function doubleThenBisect(reaches: (amount: bigint) => boolean, start: bigint): bigint | undefined {
  let hi = start;
  let steps = 0;
  while (!reaches(hi)) {
    hi *= 2n;
    if (++steps > MAX_SEARCH_STEPS) return undefined;
  }
  let lo = 0n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (reaches(mid)) hi = mid;
    else lo = mid;
    if (++steps > MAX_SEARCH_STEPS * 2) break;
  }
  return hi;
}

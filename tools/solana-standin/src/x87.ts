/** Non-integer doubles read at run time, so the modulo below is a real floating-point one. */
const OPERANDS = [2_147_483_605.5, 9];
/** How often a program run left the x87 state dirty (kept, so the modulo is never dead code). */
export let x87DirtyAfterProgram = 0;

/**
 * Puts the x87 state right after litesvm ran a program. On x64, V8 computes a double `%` on the
 * x87 unit, and litesvm's native code returns from running an SPL Token program with that state
 * dirty: the first double `%` afterwards yields NaN (the ones after it are right). In the
 * stand-in's own process that could corrupt any arithmetic of its; in a Jest worker that ran the
 * stand-in in-process, it handed the next test file's first random draw a NaN index (fast-check
 * draws with `%`), the "undefined token" failures of the pricing properties. One throwaway modulo
 * consumes the bad state.
 */
export function settleX87(): void {
  if (Number.isNaN(OPERANDS[0]! % OPERANDS[1]!)) x87DirtyAfterProgram++;
}

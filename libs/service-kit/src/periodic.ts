export interface PeriodicOptions {
  /** Delay of the first pass; without it the first pass runs as the loop starts. */
  firstAfterMs?: number;
  /** The loop's timer does not keep the process alive (a background chore, not the service's work). */
  unref?: boolean;
  /**
   * A pass that resolves with `Periodic.IDLE` (it found nothing to do) doubles the pause before the
   * next one, up to this; any other pass, or a `wake`, brings it back to `everyMs`. Without it the
   * pause is always `everyMs`.
   */
  idleMaxMs?: number;
}

/**
 * Runs `pass` now (or `firstAfterMs` after start) and then `everyMs` after each pass ends (never two
 * at once); a pass that throws is reported to `onError` and the next one runs as usual. `wake` runs the next pass at once (or
 * right after the running one), for work that has just arrived. `stop` waits for the running pass.
 */
export class Periodic {
  /** What a pass resolves with when it found nothing to do (see `idleMaxMs`). */
  static readonly IDLE = Symbol('periodic-idle');

  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private running = false;
  private again = false;
  private stopped = false;
  private started = false;
  /** The pause after the last pass: `everyMs`, or longer after idle passes (`idleMaxMs`). */
  private pauseMs: number;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly options: PeriodicOptions = {},
  ) {
    this.pauseMs = everyMs;
  }

  start(): void {
    this.started = true;
    if (this.options.firstAfterMs === undefined) this.loop();
    else this.arm(this.options.firstAfterMs);
  }

  /** Runs a pass now, or once the running one ends; a started loop only. */
  wake(): void {
    if (this.stopped || !this.started) return;
    this.pauseMs = this.everyMs;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }

  private loop(): void {
    if (this.stopped) return;
    this.running = true;
    this.again = false;
    this.pass = this.run()
      .then(
        (result) => {
          const max = this.options.idleMaxMs;
          this.pauseMs = result === Periodic.IDLE && max !== undefined ? Math.min(max, Math.max(this.pauseMs * 2, 1)) : this.everyMs;
        },
        (err: unknown) => {
          this.pauseMs = this.everyMs;
          this.onError(err);
        },
      )
      .finally(() => {
        this.running = false;
        if (this.stopped) return;
        this.arm(this.again ? 0 : this.pauseMs);
      });
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => this.loop(), delayMs);
    if (this.options.unref) this.timer.unref();
  }
}

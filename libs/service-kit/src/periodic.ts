/**
 * Runs `pass` now and then `everyMs` after each pass ends (never two at once); a pass that throws
 * is reported to `onError` and the next one runs as usual. `wake` runs the next pass at once (or
 * right after the running one), for work that has just arrived. `stop` waits for the running pass.
 */
export class Periodic {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.loop();
  }

  /** Runs a pass now, or once the running one ends; a started loop only. */
  wake(): void {
    if (this.stopped || this.pass === undefined) return;
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
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = false;
        if (this.stopped) return;
        this.timer = setTimeout(() => this.loop(), this.again ? 0 : this.everyMs);
      });
  }
}

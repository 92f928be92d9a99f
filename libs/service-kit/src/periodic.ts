/**
 * Runs `pass` now and then `everyMs` after each pass ends (never two at once); a pass that throws
 * is reported to `onError` and the next one runs as usual. `stop` waits for the running pass.
 */
export class Periodic {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.pass = this.run()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.timer = setTimeout(loop, this.everyMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
  }
}

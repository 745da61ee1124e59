/**
 * A background pass run every `everyMs` in each process (on an unref'd timer, so it never keeps one alive), never
 * twice at once: a call while a pass runs joins it. Stopping waits for the running pass.
 */
export class Periodic<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  constructor(
    private readonly pass: () => Promise<T>,
    private readonly onError: (e: Error) => void,
  ) {}

  /** Starts the timer, the first pass after `firstMs`; an interval of 0 never runs one. */
  start(everyMs: number, firstMs = everyMs): void {
    if (!everyMs) return;
    const tick = () => {
      this.run().catch((e) => this.onError(e as Error));
      this.timer = setTimeout(tick, everyMs).unref();
    };
    this.timer = setTimeout(tick, firstMs).unref();
  }

  /** One pass (`pass` instead of the usual one, for a caller that needs it); a pass already running is joined. */
  run(pass = this.pass): Promise<T> {
    this.running ??= pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}

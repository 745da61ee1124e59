/**
 * Bytes of request bodies one process holds in memory at once. A body that does not fit waits unread (the socket is
 * not read, so TCP holds the sender back) until earlier ones are done: a flood of large bodies costs time, not the
 * heap. Waiters are served first-fit, so one large body does not hold up the small ones queued behind it.
 * Hand-written: the semaphores on npm count permits, not weighted amounts that can shrink while held.
 */
export class ByteBudget {
  private used = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly capacity: number) {}

  /** Resolves once `bytes` are reserved; the returned hold gives them back (all at once, or shrinking first). */
  async acquire(bytes: number, signal: AbortSignal): Promise<Hold> {
    const want = Math.min(bytes, this.capacity);
    if (this.used + want > this.capacity || this.waiting.length) {
      await new Promise<void>((resolve, reject) => {
        const entry = { bytes: want, grant: () => resolve() };
        this.waiting.push(entry);
        signal.addEventListener('abort', () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new Error('request closed while waiting for body memory'));
        }, { once: true });
        this.drain();
      });
    } else {
      this.used += want;
    }
    return new Hold(this, want);
  }

  /** @internal */
  give(bytes: number): void {
    this.used -= bytes;
    this.drain();
  }

  private drain(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i];
      if (this.used + w.bytes > this.capacity) {
        i++;
        continue;
      }
      this.used += w.bytes;
      this.waiting.splice(i, 1);
      w.grant();
    }
  }
}

export class Hold {
  constructor(
    private readonly budget: ByteBudget,
    private held: number,
  ) {}

  /** Keeps only `bytes` of the reservation (a multipart body whose fields turned out smaller than reserved). */
  shrinkTo(bytes: number): void {
    if (bytes >= this.held) return;
    this.budget.give(this.held - bytes);
    this.held = bytes;
  }

  release(): void {
    this.budget.give(this.held);
    this.held = 0;
  }
}

/**
 * Bytes of request bodies one process holds in memory at once. A body that does not fit waits unread (the socket is
 * not read, so TCP holds the sender back) until earlier ones are done: a flood of large bodies costs time, not the
 * heap. Waiters are served first-fit, so one large body does not hold up the small ones queued behind it.
 * With a `share`, no one key (a client) holds more than that at once: its further requests wait while other keys'
 * requests are served first-fit past them (the connection gates use it so).
 * Hand-written: the semaphores on npm count permits, not weighted amounts that can shrink while held.
 */
export class ByteBudget {
  private used = 0;
  private readonly byKey = new Map<string, number>();
  private readonly waiting: { bytes: number; key: string; grant: () => void }[] = [];

  constructor(
    readonly capacity: number,
    readonly share = capacity,
  ) {}

  /** Resolves once `bytes` are reserved; the returned hold gives them back (all at once, or shrinking first). */
  async acquire(bytes: number, signal: AbortSignal, key = ''): Promise<Hold> {
    const want = Math.min(bytes, this.capacity, this.share);
    if (!this.fits(key, want) || this.waiting.length) {
      await new Promise<void>((resolve, reject) => {
        const entry = { bytes: want, key, grant: () => resolve() };
        this.waiting.push(entry);
        signal.addEventListener(
          'abort',
          () => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            reject(new Error('request closed while waiting for body memory'));
          },
          { once: true },
        );
        this.drain();
      });
    } else {
      this.take(key, want);
    }
    return new Hold(this, want, key);
  }

  /** What `key` holds now. */
  heldBy(key: string): number {
    return this.byKey.get(key) ?? 0;
  }

  /** Requests of `key` waiting now (a gate refuses a client's request at once beyond a bound). */
  waitingFor(key: string): number {
    return this.waiting.reduce((n, w) => n + (w.key === key ? 1 : 0), 0);
  }

  /** @internal */
  give(bytes: number, key = ''): void {
    this.used -= bytes;
    const left = (this.byKey.get(key) ?? 0) - bytes;
    if (left > 0) this.byKey.set(key, left);
    else this.byKey.delete(key);
    this.drain();
  }

  private fits(key: string, bytes: number): boolean {
    return this.used + bytes <= this.capacity && (this.byKey.get(key) ?? 0) + bytes <= this.share;
  }

  private take(key: string, bytes: number): void {
    this.used += bytes;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + bytes);
  }

  private drain(): void {
    for (let i = 0; i < this.waiting.length;) {
      const w = this.waiting[i];
      if (!this.fits(w.key, w.bytes)) {
        i++;
        continue;
      }
      this.take(w.key, w.bytes);
      this.waiting.splice(i, 1);
      w.grant();
    }
  }
}

export class Hold {
  constructor(
    private readonly budget: ByteBudget,
    private held: number,
    private readonly key = '',
  ) {}

  /** Keeps only `bytes` of the reservation (a multipart body whose fields turned out smaller than reserved). */
  shrinkTo(bytes: number): void {
    if (bytes >= this.held) return;
    this.budget.give(this.held - bytes, this.key);
    this.held = bytes;
  }

  release(): void {
    this.budget.give(this.held, this.key);
    this.held = 0;
  }
}

/**
 * Disk bytes of files spooled before their sender is known (UPLOAD_BEFORE_TOKEN_MB), shared between client addresses.
 * arcgis-rest-js sends the token after the file, so its uploads can only be told from an anonymous one at their end.
 * A single pool let a few slow anonymous uploads hold it all and refuse every such upload; so every address is
 * guaranteed `share` of it: an address may spool more while there is room (one user's large upload), but a request
 * from an address within its share that finds the pool full takes the room back from the addresses over theirs,
 * refusing their largest uploads. The trade-off: an upload larger than the share can be cut when other addresses
 * upload at the same time; one within it is cut only by a sender holding four or more addresses (or /64s).
 */
export class SpoolBudget {
  private used = 0;
  private readonly byAddress = new Map<string, Set<Spool>>();

  constructor(
    readonly capacity: number,
    readonly share: number,
  ) {}

  /** A spool for one request; `preempted` is called when another address takes its bytes back (it must stop). */
  open(address: string, preempted: () => void): Spool {
    return new Spool(this, address, preempted);
  }

  /** @internal */
  take(spool: Spool, bytes: number): boolean {
    if (this.used + bytes > this.capacity && this.held(spool.address) + bytes <= this.share) {
      for (
        let victim = this.overShare(spool.address);
        victim && this.used + bytes > this.capacity;
        victim = this.overShare(spool.address)
      ) {
        victim.release();
        victim.preempted();
      }
    }
    if (this.used + bytes > this.capacity) return false;
    let set = this.byAddress.get(spool.address);
    if (!set) this.byAddress.set(spool.address, (set = new Set()));
    set.add(spool);
    this.used += bytes;
    return true;
  }

  /** @internal */
  give(spool: Spool, bytes: number): void {
    this.used -= bytes;
    const set = this.byAddress.get(spool.address);
    if (set && spool.bytes === 0 && set.delete(spool) && set.size === 0) this.byAddress.delete(spool.address);
  }

  private held(address: string): number {
    let sum = 0;
    for (const s of this.byAddress.get(address) ?? []) sum += s.bytes;
    return sum;
  }

  /** The largest spool of the address furthest over its share, other than `except`; none if every address is within. */
  private overShare(except: string): Spool | undefined {
    let worst: string | undefined;
    let worstHeld = this.share;
    for (const address of this.byAddress.keys()) {
      const held = this.held(address);
      if (address !== except && held > worstHeld) [worst, worstHeld] = [address, held];
    }
    if (worst === undefined) return undefined;
    return [...this.byAddress.get(worst)!].reduce((a, b) => (b.bytes > a.bytes ? b : a));
  }
}

export class Spool {
  bytes = 0;
  private closed = false;

  constructor(
    private readonly budget: SpoolBudget,
    readonly address: string,
    readonly preempted: () => void,
  ) {}

  /** Counts `bytes` more of this request's file; false when they do not fit (the request must be refused). */
  take(bytes: number): boolean {
    if (this.closed || !this.budget.take(this, bytes)) return false;
    this.bytes += bytes;
    return true;
  }

  /** Gives every byte back (the file was deleted, adopted by a known sender, or the request ended); later takes fail. */
  release(): void {
    this.closed = true;
    const bytes = this.bytes;
    this.bytes = 0;
    this.budget.give(this, bytes);
  }
}

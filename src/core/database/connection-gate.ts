import { ArcgisError } from '../errors/arcgis-error';
import { ByteBudget } from '../http/byte-budget';

/** A client's requests that may wait for a connection beyond its share; more are refused at once. */
export const WAITING_PER_CLIENT = 16;

export interface GateLimits {
  /** Connections the gated work may hold together (at most the pool's size). */
  capacity: number;
  /** Connections one client (a user, or an anonymous address's network) may hold at once. */
  share: number;
  /** Longest a request waits for its turn before it is refused. */
  waitMs: number;
}

/** The envelope a request gets when it cannot have a connection in time: busy, try again; never a 500. */
export function busy(): ArcgisError {
  return new ArcgisError(503, 'Unable to complete operation.', ['The server is too busy to answer this request now; try again shortly.']);
}

/**
 * Per-client fair shares of one connection pool, the upload spool's rule applied to connections: no client holds more
 * than `share` of the pool, so one client's slow requests (a search over large descriptions, a CPU-burning where clause)
 * queue behind each other while every other client is served. Beyond its share a client's requests wait, at most
 * WAITING_PER_CLIENT of them and for at most `waitMs`; the rest are refused at once.
 */
export class ConnectionGate {
  private readonly slots: ByteBudget;

  constructor(readonly limits: GateLimits) {
    this.slots = new ByteBudget(Math.max(1, limits.capacity), Math.max(1, Math.min(limits.share, limits.capacity)));
  }

  async run<T>(client: string, fn: () => Promise<T>): Promise<T> {
    if (this.slots.waitingFor(client) >= WAITING_PER_CLIENT) throw busy();
    let slot;
    try {
      slot = await this.slots.acquire(1, AbortSignal.timeout(this.limits.waitMs), client);
    } catch {
      throw busy();
    }
    try {
      return await fn();
    } finally {
      slot.release();
    }
  }
}

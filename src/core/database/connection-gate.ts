import { ArcgisError } from '../errors/arcgis-error';
import { ByteBudget } from '../http/byte-budget';
import { isAnonymousClient, requestClosed } from '../http/request-client';

/**
 * A client's requests that may wait for a connection beyond its share; more are refused at once. Many browsers behind
 * one address (an office, a school) count as one anonymous client, so this is room for a crowd, not for one browser.
 */
export const WAITING_PER_CLIENT = 64;

export interface GateLimits {
  /** Connections the gated work may hold together (at most the pool's size). */
  capacity: number;
  /** Connections one client (a user, or an anonymous address's network) may hold at once. */
  share: number;
  /** Longest a request waits for its turn before it is refused. */
  waitMs: number;
  /** Requests of one client that may wait at once (default WAITING_PER_CLIENT). */
  maxWaiting?: number;
  /** What anonymous networks may hold: together `capacity`, each `share`, so signed-in callers always find the rest. */
  anonymous?: { capacity: number; share: number };
}

/** The envelope a request gets when the pool is full of other clients' work: busy, try again; never a 500. */
export function busy(): ArcgisError {
  return new ArcgisError(503, 'Unable to complete operation.', ['The server is too busy to answer this request now; try again shortly.']);
}

/** The envelope a request gets when its own client's requests hold its share: that client is asking too much at once. */
export function tooMany(): ArcgisError {
  return new ArcgisError(429, 'Too many requests.', [
    'This client already has as many requests running as it may; try again when they have finished.',
  ]);
}

/** What a request whose client has gone gets instead of its turn: nobody reads it, so it only ends the handler. */
export function clientGone(): ArcgisError {
  return new ArcgisError(400, 'Request cancelled.', ['The client closed the connection before its turn came.']);
}

/**
 * Per-client fair shares of one connection pool, the upload spool's rule applied to connections: no client holds more
 * than `share` of the pool, so one client's slow requests (a search over large descriptions, a CPU-burning where clause)
 * queue behind each other while every other client is served. Beyond its share a client's requests wait, at most
 * `maxWaiting` of them and for at most `waitMs`; the rest are refused at once (429 when the client's own requests
 * fill its share, 503 when other clients' fill the pool).
 */
export class ConnectionGate {
  private readonly slots: ByteBudget;
  /** Anonymous requests pass this one first, then take their slot here like everyone's. */
  private readonly anonymous?: ConnectionGate;

  constructor(readonly limits: GateLimits) {
    this.slots = new ByteBudget(Math.max(1, limits.capacity), Math.max(1, Math.min(limits.share, limits.capacity)));
    if (limits.anonymous) this.anonymous = new ConnectionGate({ ...limits, ...limits.anonymous, anonymous: undefined });
  }

  /** Runs `fn` holding one of `client`'s slots; `anonymous` (by default: from the key) applies the anonymous cap. */
  run<T>(client: string, fn: () => Promise<T>, anonymous = isAnonymousClient(client)): Promise<T> {
    if (anonymous && this.anonymous) return this.anonymous.run(client, () => this.hold(client, fn));
    return this.hold(client, fn);
  }

  private async hold<T>(client: string, fn: () => Promise<T>): Promise<T> {
    if (this.slots.waitingFor(client) >= (this.limits.maxWaiting ?? WAITING_PER_CLIENT)) throw tooMany();
    // A request whose client has gone leaves the queue, so clients that send and hang up cannot stack work.
    const gone = requestClosed();
    if (gone?.aborted) throw clientGone();
    const timeout = AbortSignal.timeout(this.limits.waitMs);
    let slot;
    try {
      slot = await this.slots.acquire(1, gone ? AbortSignal.any([timeout, gone]) : timeout, client);
    } catch {
      if (gone?.aborted) throw clientGone();
      // Still waiting behind its own share: this client's doing (429); behind everyone else's: the server's (503).
      throw this.slots.heldBy(client) >= this.slots.share ? tooMany() : busy();
    }
    try {
      return await fn();
    } finally {
      slot.release();
    }
  }
}

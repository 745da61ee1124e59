import { DataSource, EntityManager } from 'typeorm';

/** What changed, said once by the one place that changes it; webhooks deliver it (payload fields as ArcGIS Enterprise's). */
export interface OutboxEvent {
  orgId: string;
  /** Who made the change; null for the system (a worker finishing a job on an owner's behalf keeps the owner). */
  user: { userId: string; username: string } | null;
  /** ArcGIS Enterprise's operation name: add, update, delete, share, unshare, move, reassign, ... */
  operation: string;
  source: 'item' | 'group' | 'user';
  /** The item, group or user the event is about; null for a batch of several (each in `properties`). */
  id: string | null;
  /**
   * Every event URI a webhook may have subscribed to that this event matches (`/items`, `/items/share`,
   * `/items/<id>`, `/items/<id>/share`); see eventKeys.
   */
  keys: string[];
  properties: object;
}

const ROOTS = { item: '/items', group: '/groups', user: '/users' } as const;

/** The URIs of an operation on some items, groups or users: the whole kind, the operation, each one, each one's operation. */
export function eventKeys(source: OutboxEvent['source'], operation: string, ids: readonly string[]): string[] {
  const root = ROOTS[source];
  return [root, `${root}/${operation}`, ...ids.flatMap((id) => [`${root}/${id}`, `${root}/${id}/${operation}`])];
}

/**
 * The transactional outbox: `raise` writes the event with the caller's EntityManager, inside the transaction of the
 * change, so a rolled-back change raises nothing and a committed one is delivered even if the process dies next.
 * One INSERT per call, whatever the event carries.
 */
export const Outbox = {
  async raise(m: EntityManager, e: OutboxEvent): Promise<void> {
    await m.query(
      `INSERT INTO events (org_id, user_id, username, operation, source, source_id, keys, properties)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [e.orgId, e.user?.userId ?? null, e.user?.username ?? null, e.operation, e.source, e.id, e.keys, JSON.stringify(e.properties)],
    );
  },
};

/** Who acted, as a Caller has it; kept structural so core/events needs nothing from auth. */
export interface Actor {
  userId: string;
  username: string;
  orgId: string;
}

/** The event of `actor` doing `operation` on one or more items, groups or users (`ids`: ids, or user names). */
export function eventBy(
  actor: Actor,
  source: OutboxEvent['source'],
  operation: string,
  ids: string[],
  properties: object = {},
): OutboxEvent {
  return {
    orgId: actor.orgId,
    user: { userId: actor.userId, username: actor.username },
    operation,
    source,
    id: ids.length === 1 ? ids[0] : null,
    keys: eventKeys(source, operation, ids),
    properties,
  };
}

/**
 * Runs a repository's write and raises `event` with it, atomically: in `m`'s transaction when given, else in a
 * transaction of its own (a write with no event runs as before, outside one). `event` may be a function of the
 * write's result, returning null when nothing changed (nothing is raised then).
 */
export async function writeWithEvent<T>(
  db: DataSource,
  m: EntityManager | undefined,
  event: OutboxEvent | ((r: T) => OutboxEvent | null) | undefined,
  write: (m: EntityManager) => Promise<T>,
): Promise<T> {
  if (!event) return write(m ?? db.manager);
  const run = async (tm: EntityManager) => {
    const r = await write(tm);
    const e = typeof event === 'function' ? event(r) : event;
    if (e) await Outbox.raise(tm, e);
    return r;
  };
  return m ? run(m) : db.transaction(run);
}

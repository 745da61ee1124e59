import { EntityManager } from 'typeorm';

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

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface WebhookRow {
  id: string;
  org_id: string;
  owner_id: string | null;
  name: string;
  payload_url: string;
  events: string[];
  all_changes: boolean;
  secret: string | null;
  config: { deactivationPolicy?: { numberOfFailures: number; daysInPast: number }; properties?: Record<string, string> };
  is_active: boolean;
  created: Date;
  modified: Date;
}

export interface DeliveryRow {
  id: string;
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event: Record<string, unknown>;
  occurred: Date;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  created: Date;
  invoked: Date | null;
  response_status: number | null;
  response_text: string | null;
}

export interface WebhookSettings {
  notificationAttempts: number;
  notificationTimeOutInSeconds: number;
  notificationElapsedTimeInSeconds: number;
}

const SETTINGS_SQL = `SELECT coalesce(s.notification_attempts, 3) AS "notificationAttempts",
  coalesce(s.notification_timeout_s, 10) AS "notificationTimeOutInSeconds",
  coalesce(s.notification_elapsed_s, 5) AS "notificationElapsedTimeInSeconds"
  FROM (SELECT 1) one LEFT JOIN webhook_settings s ON s.org_id = $1`;

/** The one writer of webhooks, their deliveries and settings; also empties the event outbox into deliveries. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async create(w: Omit<WebhookRow, 'created' | 'modified' | 'is_active'>): Promise<WebhookRow> {
    const rows: WebhookRow[] = await this.db.query(
      `INSERT INTO webhooks (id, org_id, owner_id, name, payload_url, events, all_changes, secret, config)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [w.id, w.org_id, w.owner_id, w.name, w.payload_url, w.events, w.all_changes, w.secret, JSON.stringify(w.config)],
    );
    return rows[0];
  }

  async find(orgId: string, id: string): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(`SELECT * FROM webhooks WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return rows[0] ?? null;
  }

  async byId(id: string): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(`SELECT * FROM webhooks WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async list(orgId: string, start: number, num: number): Promise<{ total: number; rows: WebhookRow[] }> {
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM webhooks WHERE org_id = $1`, [orgId]);
    const rows: WebhookRow[] = await this.db.query(`SELECT * FROM webhooks WHERE org_id = $1 ORDER BY created, id OFFSET $2 LIMIT $3`, [
      orgId,
      start - 1,
      num,
    ]);
    return { total, rows };
  }

  async update(
    orgId: string,
    id: string,
    w: Pick<WebhookRow, 'name' | 'payload_url' | 'events' | 'all_changes' | 'secret' | 'config'>,
  ): Promise<WebhookRow | null> {
    const rows: [WebhookRow[], number] = await this.db.query(
      `UPDATE webhooks SET name = $3, payload_url = $4, events = $5, all_changes = $6, secret = $7, config = $8, modified = now()
        WHERE org_id = $1 AND id = $2 RETURNING *`,
      [orgId, id, w.name, w.payload_url, w.events, w.all_changes, w.secret, JSON.stringify(w.config)],
    );
    return rows[0][0] ?? null;
  }

  async remove(orgId: string, id: string): Promise<boolean> {
    const [, n]: [unknown, number] = await this.db.query(`DELETE FROM webhooks WHERE org_id = $1 AND id = $2`, [orgId, id]);
    return n > 0;
  }

  async setActive(orgId: string | null, id: string, active: boolean): Promise<boolean> {
    const [, n]: [unknown, number] = await this.db.query(
      `UPDATE webhooks SET is_active = $3, modified = now() WHERE ($1::text IS NULL OR org_id = $1) AND id = $2 AND is_active <> $3`,
      [orgId, id, active],
    );
    return n > 0;
  }

  async settings(orgId: string): Promise<WebhookSettings> {
    const rows: WebhookSettings[] = await this.db.query(SETTINGS_SQL, [orgId]);
    return rows[0];
  }

  async updateSettings(orgId: string, s: WebhookSettings): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_settings (org_id, notification_attempts, notification_timeout_s, notification_elapsed_s) VALUES ($1, $2, $3, $4)
       ON CONFLICT (org_id) DO UPDATE SET notification_attempts = $2, notification_timeout_s = $3, notification_elapsed_s = $4`,
      [orgId, s.notificationAttempts, s.notificationTimeOutInSeconds, s.notificationElapsedTimeInSeconds],
    );
  }

  async deliveries(webhookId: string, start: number, num: number): Promise<{ total: number; rows: DeliveryRow[] }> {
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM webhook_deliveries WHERE webhook_id = $1`, [webhookId]);
    const rows: DeliveryRow[] = await this.db.query(
      `SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created DESC, id DESC OFFSET $2 LIMIT $3`,
      [webhookId, start - 1, num],
    );
    return { total, rows };
  }

  /** A past delivery sent again: a new delivery of the same event (same event id), queued behind the pending ones. */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
    const rows: DeliveryRow[] = await this.db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event, occurred)
       SELECT webhook_id, event_id, event, occurred FROM webhook_deliveries WHERE webhook_id = $1 AND delivery_id = $2
       RETURNING *`,
      [webhookId, deliveryId],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves committed outbox events, oldest first, into one delivery per matching active webhook and removes them from
   * the outbox, in one statement; an advisory lock keeps one dispatcher at a time, so deliveries keep the events' order.
   * Returns how many events moved (0 when another dispatcher holds the lock).
   */
  async dispatch(limit: number): Promise<number> {
    return this.db.transaction(async (m) => {
      const [{ locked }] = await m.query(`SELECT pg_try_advisory_xact_lock(hashtext('webhook-dispatch')) AS locked`);
      if (!locked) return 0;
      const rows: { n: number }[] = await m.query(
        `WITH ev AS (
           DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT $1) RETURNING *
         ),
         ins AS (
           INSERT INTO webhook_deliveries (webhook_id, event_id, event, occurred)
           SELECT w.id, ev.event_id,
                  jsonb_build_object('userId', ev.user_id, 'username', ev.username, 'when', (extract(epoch FROM ev.occurred) * 1000)::bigint,
                    'operation', ev.operation, 'source', ev.source, 'id', ev.source_id, 'properties', ev.properties),
                  ev.occurred
             FROM ev JOIN webhooks w ON w.org_id = ev.org_id AND w.is_active AND w.created <= ev.occurred AND (w.all_changes OR w.events && ev.keys)
            ORDER BY ev.id, w.id
         )
         SELECT count(*)::int AS n FROM ev`,
        [limit],
      );
      return rows[0].n;
    });
  }

  /**
   * A queued delivery job for each active webhook with pending deliveries and none already unfinished, inserted
   * under the dispatcher's lock so a webhook never has two (its deliveries go out one at a time, in order).
   */
  async newDeliveryJobs(type: string): Promise<string[]> {
    return this.db.transaction(async (m) => {
      const [{ locked }] = await m.query(`SELECT pg_try_advisory_xact_lock(hashtext('webhook-jobs')) AS locked`);
      if (!locked) return [];
      const rows: { id: string }[] = await m.query(
        `INSERT INTO jobs (id, type, owner_id, status, status_message, params)
         SELECT replace(gen_random_uuid()::text, '-', ''), $1,
                coalesce(w.owner_id, (SELECT u.id FROM users u WHERE u.org_id = w.org_id ORDER BY u.created LIMIT 1)),
                'queued', 'queued', jsonb_build_object('webhookId', w.id)
           FROM webhooks w
          WHERE w.is_active
            AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending')
            AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.type = $1 AND j.status IN ('queued','processing') AND j.params->>'webhookId' = w.id)
         RETURNING id`,
        [type],
      );
      return rows.map((r) => r.id);
    });
  }

  async nextPending(webhookId: string): Promise<DeliveryRow | null> {
    const rows: DeliveryRow[] = await this.db.query(
      `SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY id LIMIT 1`,
      [webhookId],
    );
    return rows[0] ?? null;
  }

  async attempted(id: string, status: DeliveryRow['status'], responseStatus: number | null, text: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, invoked = now(), response_status = $3, response_text = $4 WHERE id = $1`,
      [id, status, responseStatus, text],
    );
  }

  /** Failed deliveries of the webhook within the last `days` days. */
  async failuresSince(webhookId: string, days: number): Promise<number> {
    const [{ n }] = await this.db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'failed' AND invoked > now() - make_interval(days => $2)`,
      [webhookId, days],
    );
    return n;
  }

  /** Deliveries older than the history kept, and finished delivery job rows as old. */
  async purge(days: number, type: string): Promise<void> {
    await this.db.query(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created < now() - make_interval(days => $1)`, [days]);
    await this.db.query(
      `DELETE FROM jobs WHERE type = $2 AND status NOT IN ('queued','processing') AND finished < now() - make_interval(days => $1)`,
      [days, type],
    );
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event outbox (written in the transaction of the change it reports, emptied by the workers' dispatcher),
 * organisation webhooks, their deliveries (the notificationStatus log) and each organisation's delivery settings.
 */
export class Webhooks1732500000000 implements MigrationInterface {
  name = 'Webhooks1732500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id bigserial PRIMARY KEY,
        event_id text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', ''),
        org_id text NOT NULL,
        user_id text,
        username text,
        operation text NOT NULL,
        source text NOT NULL,
        source_id text,
        keys text[] NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}',
        occurred timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE webhooks (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        owner_id text REFERENCES users(id) ON DELETE SET NULL,
        name text NOT NULL,
        payload_url text NOT NULL,
        events text[] NOT NULL,
        all_changes boolean NOT NULL DEFAULT false,
        secret text,
        config jsonb NOT NULL DEFAULT '{}',
        is_active boolean NOT NULL DEFAULT true,
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_org_idx ON webhooks (org_id, created)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        delivery_id text NOT NULL UNIQUE DEFAULT replace(gen_random_uuid()::text, '-', ''),
        webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event jsonb NOT NULL,
        occurred timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','delivered','failed')),
        attempts integer NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        invoked timestamptz,
        response_status integer,
        response_text text
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, id) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created DESC, id DESC)`);
    await q.query(`
      CREATE TABLE webhook_settings (
        org_id text PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
        notification_attempts integer NOT NULL DEFAULT 3,
        notification_timeout_s integer NOT NULL DEFAULT 10,
        notification_elapsed_s integer NOT NULL DEFAULT 5
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_settings`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
    await q.query(`DROP TABLE events`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable job state: Postgres is the source of truth, Redis only carries the work. A job row is committed
 * before its BullMQ job is enqueued, so a worker never picks up a job it cannot find.
 */
export class Jobs1732260000000 implements MigrationInterface {
  name = 'Jobs1732260000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id text PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('export','publish')),
        owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        source_item_id text REFERENCES items(id) ON DELETE SET NULL,
        result_item_id text REFERENCES items(id) ON DELETE SET NULL,
        status text NOT NULL CHECK (status IN ('queued','processing','completed','failed','cancelled')),
        status_message text NOT NULL DEFAULT '',
        params jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        started timestamptz,
        finished timestamptz
      )`);
    await q.query(`CREATE INDEX jobs_result_item_idx ON jobs (result_item_id)`);
    await q.query(`CREATE INDEX jobs_source_item_idx ON jobs (source_item_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS jobs`);
  }
}

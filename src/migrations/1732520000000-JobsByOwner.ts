import { MigrationInterface, QueryRunner } from 'typeorm';

/** The exports page lists a user's jobs newest first; without this index that reads every job of every user. */
export class JobsByOwner1732520000000 implements MigrationInterface {
  name = 'JobsByOwner1732520000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS jobs_owner_created_idx ON jobs (owner_id, type, created DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS jobs_owner_created_idx`);
  }
}

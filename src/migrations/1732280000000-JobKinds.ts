import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Job kinds are declared in code (src/jobs.ts), so the table no longer lists them: a new kind needs no migration.
 * The type stays a plain name, as the job contract requires.
 */
export class JobKinds1732280000000 implements MigrationInterface {
  name = 'JobKinds1732280000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_type_check`);
    await q.query(`ALTER TABLE jobs ADD CONSTRAINT jobs_type_check CHECK (type ~ '^[a-z][a-z0-9-]{0,30}$')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_type_check`);
    await q.query(`ALTER TABLE jobs ADD CONSTRAINT jobs_type_check CHECK (type IN ('export','publish'))`);
  }
}

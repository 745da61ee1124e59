import { MigrationInterface, QueryRunner } from 'typeorm';

/** Built-in notifications (group and organisation messages), listed per recipient newest first; they go with the user. */
export class Notifications1732431000000 implements MigrationInterface {
  name = 'Notifications1732431000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE notifications (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL,
        data jsonb NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX notifications_user_idx ON notifications (user_id, created DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE notifications`);
  }
}

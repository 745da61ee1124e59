import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What groups need beyond create and delete: protection against deletion, who may join (membershipAccess), type
 * keywords, a category schema and a thumbnail; and the two ways into a group besides addUsers: a user's request to
 * join (group_applications) and a manager's invitation (group_invitations).
 */
export class GroupMembership1732420000000 implements MigrationInterface {
  name = 'GroupMembership1732420000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE groups
        ADD COLUMN protected boolean NOT NULL DEFAULT false,
        ADD COLUMN membership_access text CHECK (membership_access IN ('org', 'collaboration', 'none')),
        ADD COLUMN type_keywords text[] NOT NULL DEFAULT '{}',
        ADD COLUMN category_schema jsonb,
        ADD COLUMN thumbnail text,
        ADD COLUMN thumbnail_key text`);
    await q.query(`
      CREATE TABLE group_applications (
        group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_id, user_id)
      )`);
    await q.query(`CREATE INDEX group_applications_user_idx ON group_applications (user_id)`);
    await q.query(`
      CREATE TABLE group_invitations (
        id text PRIMARY KEY,
        group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        from_user_id text REFERENCES users(id) ON DELETE SET NULL,
        role text NOT NULL CHECK (role IN ('group_member', 'group_admin')),
        expires timestamptz NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (group_id, user_id)
      )`);
    await q.query(`CREATE INDEX group_invitations_user_idx ON group_invitations (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE group_invitations`);
    await q.query(`DROP TABLE group_applications`);
    await q.query(`
      ALTER TABLE groups
        DROP COLUMN protected, DROP COLUMN membership_access, DROP COLUMN type_keywords,
        DROP COLUMN category_schema, DROP COLUMN thumbnail, DROP COLUMN thumbnail_key`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What `community/users/<u>/update` writes and user search reads: the profile fields ArcGIS users carry (tags,
 * thumbnail, who may see the profile, culture, region, units, preferred view), the user's app settings
 * (`setProperties`), the last sign-in, and the organisation's own settings (`portals/self/settings`). User search
 * matches user names and full names anywhere in them, so both get trigram indexes (pg_trgm: migration ItemTextSearch).
 */
export class UserProfiles1732430000000 implements MigrationInterface {
  name = 'UserProfiles1732430000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users
        ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
        ADD COLUMN thumbnail text,
        ADD COLUMN access text NOT NULL DEFAULT 'org' CHECK (access IN ('private', 'org', 'public')),
        ADD COLUMN culture text,
        ADD COLUMN region text,
        ADD COLUMN units text CHECK (units IN ('english', 'metric')),
        ADD COLUMN preferred_view text CHECK (preferred_view IN ('Web', 'GIS')),
        ADD COLUMN properties jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN last_login timestamptz`);
    await q.query(`ALTER TABLE orgs ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE INDEX users_username_trgm_idx ON users USING gin (username gin_trgm_ops)`);
    await q.query(`CREATE INDEX users_full_name_trgm_idx ON users USING gin (full_name gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX users_full_name_trgm_idx`);
    await q.query(`DROP INDEX users_username_trgm_idx`);
    await q.query(`ALTER TABLE orgs DROP COLUMN settings`);
    await q.query(`
      ALTER TABLE users
        DROP COLUMN tags, DROP COLUMN thumbnail, DROP COLUMN access, DROP COLUMN culture, DROP COLUMN region,
        DROP COLUMN units, DROP COLUMN preferred_view, DROP COLUMN properties, DROP COLUMN last_login`);
  }
}

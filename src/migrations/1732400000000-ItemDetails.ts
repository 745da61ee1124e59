import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What `update` and its companions write besides the item's core fields: the remaining item properties, delete
 * protection and the thumbnail (items), the info files and resources (item_files, one row per stored object, keyed by
 * the path clients name it by) and relationships between items (item_relationships). Files and relationships go with
 * their item (ON DELETE CASCADE); their objects live under the item's folder in the file store, removed with it.
 */
export class ItemDetails1732400000000 implements MigrationInterface {
  name = 'ItemDetails1732400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE items
        ADD COLUMN access_information text,
        ADD COLUMN license_info text,
        ADD COLUMN culture text,
        ADD COLUMN thumbnail text,
        ADD COLUMN thumbnail_key text,
        ADD COLUMN protected boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE item_files (
        item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('info', 'resource')),
        path text NOT NULL,
        key text NOT NULL,
        size bigint NOT NULL,
        access text NOT NULL DEFAULT 'inherit' CHECK (access IN ('inherit', 'private')),
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (item_id, kind, path)
      )`);
    await q.query(`
      CREATE TABLE item_relationships (
        origin_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        destination_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        type text NOT NULL,
        creator_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (origin_id, type, destination_id)
      )`);
    await q.query(`CREATE INDEX item_relationships_destination_idx ON item_relationships (destination_id, type)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE item_relationships`);
    await q.query(`DROP TABLE item_files`);
    await q.query(`
      ALTER TABLE items
        DROP COLUMN access_information, DROP COLUMN license_info, DROP COLUMN culture,
        DROP COLUMN thumbnail, DROP COLUMN thumbnail_key, DROP COLUMN protected`);
  }
}

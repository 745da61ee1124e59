import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User folders (one level, as ArcGIS has) and each item's place in them. The item's folder is a foreign key on
 * (folder, owner), so an item can only ever sit in a folder of its own owner, whatever statement moves or reassigns it.
 */
export class Folders1732410000000 implements MigrationInterface {
  name = 'Folders1732410000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE folders (
        id text PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        title text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (id, owner_id)
      )`);
    await q.query(`CREATE UNIQUE INDEX folders_owner_title_idx ON folders (owner_id, lower(title))`);
    await q.query(`ALTER TABLE items ADD COLUMN owner_folder text`);
    await q.query(
      `ALTER TABLE items ADD CONSTRAINT items_owner_folder_fk FOREIGN KEY (owner_folder, owner_id) REFERENCES folders (id, owner_id)`,
    );
    await q.query(`CREATE INDEX items_owner_folder_idx ON items (owner_folder) WHERE owner_folder IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE items DROP COLUMN owner_folder`);
    await q.query(`DROP TABLE folders`);
  }
}

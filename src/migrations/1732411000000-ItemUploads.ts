import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Multipart uploads (addItem multipart=true, addPart, commit): the upload of an item and the parts received so far.
 * The parts' bytes are in storage; these rows say which exist, so listing and committing read no storage listing.
 */
export class ItemUploads1732411000000 implements MigrationInterface {
  name = 'ItemUploads1732411000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE items DROP CONSTRAINT items_status_check`);
    await q.query(
      `ALTER TABLE items ADD CONSTRAINT items_status_check CHECK (status IN ('processing','completed','failed','partsUploading'))`,
    );
    await q.query(`
      CREATE TABLE item_uploads (
        item_id text PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
        file_name text NOT NULL,
        storage_ref text,
        state text NOT NULL DEFAULT 'uploading' CHECK (state IN ('uploading','committing')),
        started timestamptz NOT NULL DEFAULT now(),
        touched timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE item_upload_parts (
        item_id text NOT NULL REFERENCES item_uploads(item_id) ON DELETE CASCADE,
        part_num int NOT NULL CHECK (part_num BETWEEN 1 AND 10000),
        size bigint NOT NULL,
        etag text NOT NULL,
        PRIMARY KEY (item_id, part_num)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE item_upload_parts`);
    await q.query(`DROP TABLE item_uploads`);
    await q.query(`UPDATE items SET status = 'failed' WHERE status = 'partsUploading'`);
    await q.query(`ALTER TABLE items DROP CONSTRAINT items_status_check`);
    await q.query(`ALTER TABLE items ADD CONSTRAINT items_status_check CHECK (status IN ('processing','completed','failed'))`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** numViews, as ArcGIS reports and sorts by it: counted when an item's data is fetched. */
export class ItemViews1732290000000 implements MigrationInterface {
  name = 'ItemViews1732290000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE items ADD COLUMN num_views bigint NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE items DROP COLUMN num_views`);
  }
}

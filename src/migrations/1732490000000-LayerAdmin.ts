import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the admin definition operations change on a layer besides its name and fields: its description, and the
 * relationships it takes part in, each side stored on its own layer as ArcGIS lists them in layer JSON; and the
 * function a composite relationship's trigger runs to delete the destination rows with their origin.
 */
export class LayerAdmin1732490000000 implements MigrationInterface {
  name = 'LayerAdmin1732490000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE feature_layers ADD COLUMN description text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE feature_layers ADD COLUMN relationships jsonb NOT NULL DEFAULT '[]'`);
    // TG_ARGV: the destination's schema, table and key column, then the origin's key column; `gone` holds the
    // deleted origin rows (the trigger's transition table), so one statement deletes all their related rows.
    await q.query(`
      CREATE FUNCTION delete_related_features() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('DELETE FROM %I.%I d USING gone o WHERE d.%I = o.%I', TG_ARGV[0], TG_ARGV[1], TG_ARGV[2], TG_ARGV[3]);
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS delete_related_features() CASCADE`);
    await q.query(`ALTER TABLE feature_layers DROP COLUMN relationships`);
    await q.query(`ALTER TABLE feature_layers DROP COLUMN description`);
  }
}

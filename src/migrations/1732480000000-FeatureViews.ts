import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted feature layer views: a view service's layers are PostgreSQL views over a source layer's table (the rows of
 * its filter, the columns of its fields). A source layer cannot go while a view reads it, as in ArcGIS, where an item
 * with views cannot be deleted.
 */
export class FeatureViews1732480000000 implements MigrationInterface {
  name = 'FeatureViews1732480000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE feature_services ADD COLUMN is_view boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE feature_view_layers (
        service_item_id text NOT NULL,
        layer_id integer NOT NULL,
        source_item_id text NOT NULL,
        source_layer_id integer NOT NULL,
        definition jsonb NOT NULL,
        PRIMARY KEY (service_item_id, layer_id),
        FOREIGN KEY (service_item_id, layer_id) REFERENCES feature_layers (service_item_id, layer_id) ON DELETE CASCADE,
        CONSTRAINT feature_view_layers_source_fk FOREIGN KEY (source_item_id, source_layer_id)
          REFERENCES feature_layers (service_item_id, layer_id) ON DELETE RESTRICT
      )`);
    await q.query(`CREATE INDEX feature_view_layers_source ON feature_view_layers (source_item_id, source_layer_id)`);
    // A view layer's relation is a view, which DROP TABLE refuses.
    await q.query(`
      CREATE OR REPLACE FUNCTION drop_feature_layer_table() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE s text; k "char";
      BEGIN
        -- When the whole service goes, its row is already gone and the schema drop takes the tables.
        SELECT schema_name INTO s FROM feature_services WHERE item_id = OLD.service_item_id;
        IF s IS NOT NULL THEN
          SELECT relkind INTO k FROM pg_class WHERE oid = to_regclass(format('%I.%I', s, OLD.table_name));
          IF k = 'v' THEN
            EXECUTE format('DROP VIEW IF EXISTS %I.%I', s, OLD.table_name);
          ELSE
            EXECUTE format('DROP TABLE IF EXISTS %I.%I', s, OLD.table_name);
          END IF;
        END IF;
        RETURN OLD;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION drop_feature_layer_table() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE s text;
      BEGIN
        SELECT schema_name INTO s FROM feature_services WHERE item_id = OLD.service_item_id;
        IF s IS NOT NULL THEN
          EXECUTE format('DROP TABLE IF EXISTS %I.%I', s, OLD.table_name);
        END IF;
        RETURN OLD;
      END $$`);
    await q.query(`DROP TABLE IF EXISTS feature_view_layers`);
    await q.query(`ALTER TABLE feature_services DROP COLUMN IF EXISTS is_view`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Hosted feature services: one Postgres schema per service, one table per layer; metadata here. */
export class FeatureServices1732250000000 implements MigrationInterface {
  name = 'FeatureServices1732250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE feature_services (
        item_id text PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
        org_id text NOT NULL REFERENCES orgs(id),
        name text NOT NULL,
        schema_name text NOT NULL UNIQUE,
        max_record_count integer NOT NULL DEFAULT 2000,
        capabilities text NOT NULL,
        spatial_reference jsonb NOT NULL DEFAULT '{"wkid":4326}',
        description text NOT NULL DEFAULT '',
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now()
      )`);
    // Services are addressed by name in URLs, so a name identifies one service across the whole portal.
    await q.query(`CREATE UNIQUE INDEX feature_services_name_uq ON feature_services (lower(name))`);
    await q.query(`
      CREATE TABLE feature_layers (
        service_item_id text NOT NULL REFERENCES feature_services(item_id) ON DELETE CASCADE,
        layer_id integer NOT NULL CHECK (layer_id >= 0),
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('Feature Layer','Table')),
        geometry_type text,
        srid integer NOT NULL DEFAULT 4326,
        table_name text NOT NULL,
        object_id_field text NOT NULL,
        display_field text,
        fields jsonb NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (service_item_id, layer_id)
      )`);
    // Dropping a service's row (directly or through its item) drops its data in the same transaction.
    await q.query(`
      CREATE FUNCTION drop_feature_service_schema() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', OLD.schema_name);
        RETURN OLD;
      END $$`);
    await q.query(`
      CREATE TRIGGER feature_services_drop_schema AFTER DELETE ON feature_services
      FOR EACH ROW EXECUTE FUNCTION drop_feature_service_schema()`);
    await q.query(`
      CREATE FUNCTION drop_feature_layer_table() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE s text;
      BEGIN
        -- When the whole service goes, its row is already gone and the schema drop takes the tables.
        SELECT schema_name INTO s FROM feature_services WHERE item_id = OLD.service_item_id;
        IF s IS NOT NULL THEN
          EXECUTE format('DROP TABLE IF EXISTS %I.%I', s, OLD.table_name);
        END IF;
        RETURN OLD;
      END $$`);
    await q.query(`
      CREATE TRIGGER feature_layers_drop_table AFTER DELETE ON feature_layers
      FOR EACH ROW EXECUTE FUNCTION drop_feature_layer_table()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS feature_layers`);
    await q.query(`DROP TABLE IF EXISTS feature_services`);
    await q.query(`DROP FUNCTION IF EXISTS drop_feature_layer_table()`);
    await q.query(`DROP FUNCTION IF EXISTS drop_feature_service_schema()`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each hosted table's count of committed edits, which query pages check before resuming where an earlier page ended
 * (src/layers/data-version.ts says why it is kept this way, without locks).
 */
export class FeatureDataVersions1732320000000 implements MigrationInterface {
  name = 'FeatureDataVersions1732320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE feature_data_versions (schema_name text NOT NULL, table_name text NOT NULL, n bigint NOT NULL)`);
    await q.query(`CREATE INDEX feature_data_versions_table ON feature_data_versions (schema_name, table_name)`);
    // The table by the schema it is made in: the trigger runs in every session that edits a layer, whatever its
    // search_path (a GDAL connection with schemas=, an admin tool), and would otherwise fail the edit.
    const [{ schema }] = (await q.query(`SELECT quote_ident(current_schema()) AS schema`)) as { schema: string }[];
    const versions = `${schema}.feature_data_versions`;
    await q.query(`
      CREATE FUNCTION bump_feature_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('transaction_isolation') = 'read committed' THEN
          WITH gone AS (
            DELETE FROM ${versions} WHERE ctid = ANY (ARRAY(
              SELECT ctid FROM ${versions} WHERE schema_name = TG_TABLE_SCHEMA AND table_name = TG_TABLE_NAME
                 FOR UPDATE SKIP LOCKED))
            RETURNING n)
          INSERT INTO ${versions} SELECT TG_TABLE_SCHEMA, TG_TABLE_NAME, 1 + coalesce(sum(n), 0) FROM gone;
        ELSE
          INSERT INTO ${versions} VALUES (TG_TABLE_SCHEMA, TG_TABLE_NAME, 1);
        END IF;
        RETURN NULL;
      END $$`);
    await this.addTriggers(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await this.dropTriggers(q);
    await q.query(`DROP FUNCTION bump_feature_data_version()`);
    await q.query(`DROP TABLE feature_data_versions`);
  }

  /** Gives the trigger to every hosted layer's table that lacks it. */
  addTriggers(q: QueryRunner): Promise<unknown> {
    return this.eachTable(
      q,
      `CONTINUE WHEN EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = t AND tgname = 'feature_data_version');
       EXECUTE format('CREATE TRIGGER feature_data_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s
         FOR EACH STATEMENT EXECUTE FUNCTION bump_feature_data_version()', t)`,
    );
  }

  dropTriggers(q: QueryRunner): Promise<unknown> {
    return this.eachTable(q, `EXECUTE format('DROP TRIGGER IF EXISTS feature_data_version ON %s', t)`);
  }

  /**
   * Runs `statements` (plpgsql, the table as regclass `t`) for each hosted layer's table that exists. A view layer
   * (FeatureViews, later) is a view over its source's table, whose trigger counts for it: it is passed over.
   */
  private eachTable(q: QueryRunner, statements: string): Promise<unknown> {
    return q.query(`
      DO $$
      DECLARE t regclass;
      BEGIN
        FOR t IN SELECT to_regclass(format('%I.%I', s.schema_name, l.table_name)) FROM feature_layers l
                   JOIN feature_services s ON s.item_id = l.service_item_id LOOP
          CONTINUE WHEN t IS NULL OR (SELECT relkind FROM pg_class WHERE oid = t) NOT IN ('r', 'p');
          ${statements};
        END LOOP;
      END $$`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * feature_data_version(schema, table): a hosted table's data version as src/layers/data-version.ts defines it, in a
 * function so that PostgreSQL plans its catalog lookups once per connection (PL/pgSQL keeps its plans) instead of for
 * every statement that reads it, which is what a query's lookups and a cache's revalidation spend most on. STABLE: it
 * reads in the calling statement's snapshot, as the SQL it replaces did.
 */
export class DataVersionFunction1732541000000 implements MigrationInterface {
  name = 'DataVersionFunction1732541000000';

  async up(q: QueryRunner): Promise<void> {
    // By the schema it is made in, as bump_feature_data_version is: callers' search_path may differ.
    const [{ schema }] = (await q.query(`SELECT quote_ident(current_schema()) AS schema`)) as { schema: string }[];
    await q.query(`
      CREATE FUNCTION feature_data_version(schema_name text, table_name text) RETURNS text LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN (
          SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = c.oid AND tgname = 'feature_data_version' AND tgenabled IN ('O', 'A'))
                 THEN (SELECT coalesce(sum(v.n), 0) FROM ${schema}.feature_data_versions v
                        WHERE v.schema_name = c.nspname AND v.table_name = c.relname)::text END
            FROM (SELECT to_regclass(format('%I.%I', feature_data_version.schema_name, feature_data_version.table_name)) AS oid) r
            LEFT JOIN LATERAL (SELECT k.oid, k.relname::text, ns.nspname::text FROM pg_class k JOIN pg_namespace ns ON ns.oid = k.relnamespace
                 WHERE k.oid = coalesce((SELECT d.refobjid FROM pg_rewrite w JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass
                   AND d.objid = w.oid AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> w.ev_class
                   WHERE w.ev_class = r.oid LIMIT 1), r.oid)) c ON true);
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION feature_data_version(text, text)`);
  }
}

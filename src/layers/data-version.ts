/**
 * A hosted layer's data version: the number of edit statements (INSERT, UPDATE, DELETE, TRUNCATE, COPY) ever
 * committed on its table, which a statement-level trigger keeps in feature_data_versions. A query page reads it in
 * its own snapshot to tell whether a resume point (query/resume-points.ts) taken under an earlier snapshot still
 * describes the same rows.
 *
 * Lock-free: each edit adds a row holding 1 plus the counts of the rows it could lock without waiting (FOR UPDATE
 * SKIP LOCKED), which it deletes. The visible sum is therefore the number of committed edits whatever the
 * interleaving, a rolled-back edit takes its row and its deletions back with it, and no editor ever waits for
 * another: one row per layer updated in place would make every edit of a layer wait for the previous editor's
 * commit, and two transactions editing two layers in opposite orders (service-level applyEdits) deadlock, which
 * editing different rows never did. Under REPEATABLE READ or SERIALIZABLE, locking a row another transaction
 * deleted since the snapshot is a serialization failure, so such edits only add their row; the next edit under READ
 * COMMITTED folds it in. Rows are never removed for a dropped table, so a table made again under the same name
 * counts on from where the old one stopped and never shows a version a resume point was taken at. Cost: each edit
 * statement leaves a dead row, which a long snapshot (an export's REPEATABLE READ) keeps from vacuum; the version
 * read stays cheap even then.
 */
import { SqlParams } from '../core/database/sql-params';

/**
 * The trigger that counts the table's edits (`qualified`: the quoted schema and table), as every hosted table has it:
 * createTableSql adds it, migration FeatureDataVersions1732320000000 made the function and gave it to older tables.
 */
export function dataVersionTriggerSql(qualified: string): string {
  return `CREATE TRIGGER feature_data_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${qualified}
    FOR EACH STATEMENT EXECUTE FUNCTION bump_feature_data_version()`;
}

/**
 * A one-row query of `v`, the table's version as text (bigint), in the calling statement's snapshot; NULL when the
 * table has no trigger firing on ordinary edits to count them (made by code from before it, the trigger disabled, as a
 * data-only restore does, or enabled for replicas only), so that nothing is ever resumed on a count that does not
 * move. Edits it cannot see: those of sessions running with session_replication_role = replica, and a trigger
 * disabled and enabled again within one transaction that edits in between. A view layer's relation (view-schema.ts)
 * has the version of the table it reads: every edit of its rows, through the view or not, is an edit of that table.
 */
export function dataVersionSql(schema: string, table: string, p: SqlParams): string {
  return dataVersionOfSql(p.add(schema), p.add(table));
}

/**
 * dataVersionSql for the schema and table that the SQL expressions `schema` and `table` name (columns of a join). The
 * lookups are those of tableReadSql and the trigger's, in the function migration DataVersionFunction1732541000000
 * made, whose plans PostgreSQL keeps per connection: planned in each statement, they cost more than they run.
 */
export function dataVersionOfSql(schema: string, table: string): string {
  return `SELECT feature_data_version(${schema}::text, ${table}::text) AS v`;
}

/**
 * SQL, the oid of the table the relation `rel` (an oid expression) reads: a view layer's source table (a view's
 * rewrite rule depends on the one table view-schema.ts makes it read), or the relation itself.
 */
export function tableReadSql(rel: string): string {
  return `coalesce((SELECT d.refobjid FROM pg_rewrite w JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
      AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> w.ev_class WHERE w.ev_class = ${rel} LIMIT 1), ${rel})`;
}

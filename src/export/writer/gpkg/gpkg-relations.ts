/**
 * Relations in a GeoPackage as its Related Tables Extension (OGC 18-000) defines them: a `gpkgext_relations` row
 * naming the base and related tables, and a mapping table of (base_id, related_id) pairs, which GDAL reads as a
 * relationship and QGIS as a relation. Written in SQL: GDAL 3.6's GeoPackage driver cannot add relationships.
 */
import type { Dataset } from 'gdal-async';

const RTE = 'http://www.geopackage.org/18-000.html';
export const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const sqlName = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * A statement that returns no rows: gdal-async reports GDAL's NULL result set as an error with an empty message, so
 * only an error with a message (GDAL's own) is one.
 */
export function exec(ds: Dataset, sql: string): void {
  try {
    ds.executeSQL(sql);
  } catch (e) {
    if ((e as Error).message) throw e;
  }
}

export interface GpkgRelation {
  base: string;
  basePrimaryColumn: string;
  related: string;
  relatedPrimaryColumn: string;
  /** The extension's relation name: `media`, `features`, `attributes`, `simple_attributes`. */
  relationName: string;
  mapping: string;
  /** A SELECT of (base id, related id) pairs that fills the mapping table. */
  pairs: string;
}

export function addGpkgRelation(ds: Dataset, r: GpkgRelation): void {
  exec(
    ds,
    `CREATE TABLE IF NOT EXISTS gpkgext_relations (id INTEGER PRIMARY KEY AUTOINCREMENT, base_table_name TEXT NOT NULL, ` +
      `base_primary_column TEXT NOT NULL DEFAULT 'id', related_table_name TEXT NOT NULL, related_primary_column TEXT NOT NULL DEFAULT 'id', ` +
      `relation_name TEXT NOT NULL, mapping_table_name TEXT NOT NULL UNIQUE)`,
  );
  exec(ds, `CREATE TABLE ${sqlName(r.mapping)} (base_id INTEGER NOT NULL, related_id INTEGER NOT NULL)`);
  exec(ds, `INSERT INTO ${sqlName(r.mapping)} ${r.pairs}`);
  exec(
    ds,
    `INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES (${sqlText(r.mapping)}, 'attributes', ${sqlText(r.mapping)})`,
  );
  exec(
    ds,
    `INSERT INTO gpkgext_relations (base_table_name, base_primary_column, related_table_name, related_primary_column, relation_name, mapping_table_name) ` +
      `VALUES (${sqlText(r.base)}, ${sqlText(r.basePrimaryColumn)}, ${sqlText(r.related)}, ${sqlText(r.relatedPrimaryColumn)}, ${sqlText(r.relationName)}, ${sqlText(r.mapping)})`,
  );
  for (const name of ['gpkgext_relations', r.mapping])
    exec(
      ds,
      `INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) ` +
        `VALUES (${sqlText(name)}, NULL, 'gpkg_related_tables', '${RTE}', 'read-write')`,
    );
}

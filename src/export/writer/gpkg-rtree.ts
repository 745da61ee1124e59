/**
 * The spatial index of a GeoPackage layer GDAL wrote with SPATIAL_INDEX=NO, packed here instead of filled by GDAL
 * 3.6 one rtree insert at a time (10.5 s instead of 3.0 s per million points, and 80 s for five million).
 *
 * Every assumption is checked against the file, and GDAL builds the index itself when one does not hold: the fid
 * column must be the OID column, and the GeoPackage must hold exactly the fids and coordinates PostGIS gives now
 * (integer sums of both, computed on each side; rows edited since GDAL read them, or a reprojection, show there).
 * The triggers and the extension row are copied from a GeoPackage GDAL makes with the same names, so edits made
 * later through any GeoPackage client keep the index as GDAL's own would. The tree is built beside the translate
 * (gpkg-rtree-build.ts) and copied in afterwards; the checks come after the copy, inside one SQLite transaction
 * rolled back when they fail.
 */
import { rm } from 'node:fs/promises';
import * as gdal from 'gdal-async';
import { GPKG_PAGE_SIZE, GpkgRtreeContext, RTREE_CACHE_KIB, RtreeBuild, startRtreeBuild } from './gpkg-rtree-build';
import type { EntrySums } from './gpkg-rtree-source';
import { exec, quoteId, quoteText, row, rows } from './gpkg-sql';
import type { ExportLayerSource } from './types';

export interface GpkgRtreeLayer {
  /** The GeoPackage table (the layer name GDAL wrote). */
  table: string;
  source: ExportLayerSource;
}

/** The table's geometry column and fid column as the GeoPackage declares them, and its page size. */
async function describe(ds: gdal.Dataset, table: string) {
  const geom = await row(ds, `SELECT column_name AS c FROM gpkg_geometry_columns WHERE table_name = ${quoteText(table)}`);
  const pk = await rows(ds, `SELECT name AS c FROM pragma_table_info(${quoteText(table)}) WHERE pk > 0`);
  const page = await row(ds, 'PRAGMA page_size');
  return {
    geomColumn: typeof geom?.c === 'string' ? geom.c : undefined,
    fidColumn: pk.length === 1 && typeof pk[0].c === 'string' ? pk[0].c : undefined,
    pageSize: Number(page?.page_size),
  };
}

/** Whether the GeoPackage's non-empty geometries have exactly the fids and (scaled, truncated) boxes of the entries. */
async function sameEntries(ds: gdal.Dataset, table: string, geom: string, fid: string, sums: EntrySums): Promise<boolean> {
  const g = quoteId(geom);
  // Text, so that 64-bit sums reach JavaScript exactly.
  const cols = ['ST_MinX', 'ST_MaxX', 'ST_MinY', 'ST_MaxY'].map(
    (f, i) => `CAST(sum(CAST(${f}(${g}) * ${sums.scale} AS INTEGER)) AS TEXT) AS c${i}`,
  );
  const r = await row(
    ds,
    `SELECT count(*) AS n, CAST(sum(${quoteId(fid)}) AS TEXT) AS f, ${cols.join(', ')} FROM ${quoteId(table)} WHERE ${g} NOT NULL AND NOT ST_IsEmpty(${g})`,
  ).catch(() => undefined); // an integer overflow (coordinates beyond the bound the scale was chosen for) means they differ
  const big = (v: unknown) => BigInt(typeof v === 'string' && v !== '' ? v : 0);
  return !!r && Number(r.n) === sums.count && big(r.f) === sums.fidSum && sums.coordSums.every((s, i) => big(r[`c${i}`]) === s);
}

/** The trigger statements and gpkg_extensions rows GDAL writes for an rtree on these names, from an empty GeoPackage it makes. */
async function gdalIndexStatements(scratch: string, table: string, geom: string, fid: string): Promise<string[]> {
  const path = `${scratch}/.rtree-template-${process.pid}-${Date.now()}.gpkg`;
  try {
    const t = await gdal.drivers.get('GPKG').createAsync(path, 0, 0, 0, gdal.GDT_Unknown);
    try {
      t.layers.create(table, null, gdal.wkbPoint, [`FID=${fid}`, `GEOMETRY_NAME=${geom}`, 'SPATIAL_INDEX=YES']);
    } finally {
      t.close();
    }
    const ds = await gdal.openAsync(path, 'r', ['GPKG']);
    try {
      // Only the index's: GDAL's feature-count triggers are in the export's GeoPackage already.
      const prefix = `rtree_${table}_${geom}_`;
      const triggers = (
        await rows(ds, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ${quoteText(table)} ORDER BY name`)
      ).filter((r) => String(r.name).startsWith(prefix));
      const ext = await rows(
        ds,
        `SELECT table_name AS t, column_name AS c, extension_name AS e, definition AS d, scope AS s FROM gpkg_extensions WHERE table_name = ${quoteText(table)}`,
      );
      const extTable = await row(ds, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'gpkg_extensions'`);
      if (!triggers.length || !ext.length || !extTable) throw new Error(`GDAL's template GeoPackage for '${table}' has no spatial index`);
      return [
        // GDAL creates gpkg_extensions only once some extension is used.
        String(extTable.sql).replace(/^CREATE TABLE /i, 'CREATE TABLE IF NOT EXISTS '),
        ...triggers.map((r) => String(r.sql)),
        ...ext.map((r) => `INSERT INTO gpkg_extensions VALUES (${[r.t, r.c, r.e, r.d, r.s].map((v) => quoteText(String(v))).join(', ')})`),
      ];
    } finally {
      ds.close();
    }
  } finally {
    await rm(path, { force: true });
  }
}

/** GDAL's own index: what every case the packed index does not cover gets. */
async function gdalIndex(ds: gdal.Dataset, table: string, geom: string): Promise<void> {
  await exec(ds, `SELECT CreateSpatialIndex(${quoteText(table)}, ${quoteText(geom)})`);
}

/** The shadow tables of SQLite's rtree module. */
const SHADOW_TABLES = ['node', 'rowid', 'parent'];

/**
 * Adds the spatial index to a layer of the closed GeoPackage at `path`, written by GDAL from buildSelectSql with
 * SPATIAL_INDEX=NO and without reprojection (packsGpkgIndex): the tree `build` made while GDAL wrote (or one built now)
 * is copied in with its shadow tables (SQLite copies such tables page by page), then checked against the file inside
 * the same transaction. Returns who built the index.
 */
export async function addGpkgRtree(
  path: string,
  layer: GpkgRtreeLayer,
  ctx: GpkgRtreeContext,
  build?: RtreeBuild,
): Promise<'packed' | 'gdal'> {
  let ds: gdal.Dataset;
  try {
    ds = await gdal.openAsync(path, 'r+', ['GPKG']);
  } catch (e) {
    await build?.stop();
    throw e;
  }
  let scratch: string | undefined;
  try {
    // The page cache of GDAL's 64 MB (OGR_SQLITE_CACHE, for the translate) only took the worker that much higher
    // (1M points: 269 → 213 MB here).
    await exec(ds, `PRAGMA cache_size = -${RTREE_CACHE_KIB}`);
    const d = await describe(ds, layer.table);
    if (!d.geomColumn) throw new Error(`GeoPackage layer '${layer.table}' has no geometry column`);
    const oidField = layer.source.fields.find((f) => f.type === 'esriFieldTypeOID');
    // GDAL's FID option named the OID field: the fids are the OID column's values (else GDAL numbered them). The
    // nodes were sized for GDAL's page size.
    if (!oidField || d.fidColumn !== oidField.name || d.pageSize !== GPKG_PAGE_SIZE) {
      await build?.stop();
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    const statements = await gdalIndexStatements(ctx.scratch, layer.table, d.geomColumn, d.fidColumn);
    const built = await (build ?? startRtreeBuild(layer.source, ctx)).done;
    scratch = built?.path;
    // No entries: GDAL's (empty) index.
    if (!built) {
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    const name = `rtree_${layer.table}_${d.geomColumn}`;
    await exec(ds, `ATTACH DATABASE ${quoteText(built.path)} AS rtree_scratch`);
    await exec(ds, 'BEGIN');
    try {
      await exec(ds, `CREATE VIRTUAL TABLE ${quoteId(name)} USING rtree(id, minx, maxx, miny, maxy)`);
      // Emptied first (the new rtree's root node): SQLite's transfer into an empty table copies whole pages.
      for (const t of SHADOW_TABLES) {
        await exec(ds, `DELETE FROM main.${quoteId(`${name}_${t}`)}`);
        await exec(ds, `INSERT INTO main.${quoteId(`${name}_${t}`)} SELECT * FROM rtree_scratch.${quoteId(`${built.table}_${t}`)}`);
      }
      if (!(await sameEntries(ds, layer.table, d.geomColumn, d.fidColumn, built.sums))) {
        await exec(ds, 'ROLLBACK');
        await gdalIndex(ds, layer.table, d.geomColumn);
        return 'gdal';
      }
      for (const s of statements) await exec(ds, s);
      await exec(ds, 'COMMIT');
      return 'packed';
    } catch (e) {
      await exec(ds, 'ROLLBACK').catch(() => undefined);
      throw e;
    }
  } finally {
    ds.close();
    if (scratch) await rm(scratch, { force: true });
  }
}

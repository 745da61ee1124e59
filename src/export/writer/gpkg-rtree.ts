/**
 * The spatial index of a GeoPackage layer GDAL wrote with SPATIAL_INDEX=NO, packed here instead of filled by GDAL
 * 3.6 one rtree insert at a time (10.5 s instead of 3.0 s per million points, and 80 s for five million).
 *
 * Every assumption is checked against the file, and GDAL builds the index itself when one does not hold: the fid
 * column must be the OID column, and the GeoPackage must hold exactly the fids and coordinates PostGIS gives now
 * (integer sums of both, computed on each side; rows edited since GDAL read them, or a reprojection, show there).
 * The triggers and the extension row are copied from a GeoPackage GDAL makes with the same names, so edits made
 * later through any GeoPackage client keep the index as GDAL's own would.
 */
import { rm } from 'node:fs/promises';
import * as gdal from 'gdal-async';
import { closeSession, openSession } from './pg-session';
import { encodeNode, packRtree, PackedRtree, RtreeEntries } from './gpkg-rtree-pack';
import { EntrySums, readRtreeEntries, sumScale } from './gpkg-rtree-source';
import { buildRtreeEntriesSql } from './sql';
import type { ExportLayerSource } from './types';

const quoteId = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * GDAL's SQLite ExecuteSQL returns no layer for a statement without result columns, and gdal-async turns that into
 * an Error whose message is GDAL's last error: empty when the statement succeeded.
 */
async function exec(ds: gdal.Dataset, sql: string): Promise<void> {
  try {
    await ds.executeSQLAsync(sql);
  } catch (e) {
    // Not `instanceof Error`: the addon's errors may come from another realm (as under jest).
    if ((e as { message?: unknown } | null)?.message === '') return;
    throw e;
  }
}

/** The rows of a query, as GDAL reads them. The result sets are released when the dataset closes. */
async function rows(ds: gdal.Dataset, sql: string): Promise<Record<string, unknown>[]> {
  const rs = await ds.executeSQLAsync(sql);
  const out: Record<string, unknown>[] = [];
  for (let f = await rs.features.firstAsync(); f; f = await rs.features.nextAsync()) out.push(f.fields.toObject());
  return out;
}

const row = async (ds: gdal.Dataset, sql: string) => (await rows(ds, sql))[0] as Record<string, unknown> | undefined;

export interface GpkgRtreeLayer {
  /** The GeoPackage table (the layer name GDAL wrote). */
  table: string;
  source: ExportLayerSource;
}

export interface GpkgRtreeContext {
  pg: string;
  sessionName: string;
  /** A directory for the template GeoPackage (the export's stage). */
  scratch: string;
  signal?: AbortSignal;
}

/** The table's geometry column, fid column and extent as the GeoPackage declares them. */
async function describe(ds: gdal.Dataset, table: string) {
  const geom = await row(ds, `SELECT column_name AS c FROM gpkg_geometry_columns WHERE table_name = ${quoteText(table)}`);
  const pk = await rows(ds, `SELECT name AS c FROM pragma_table_info(${quoteText(table)}) WHERE pk > 0`);
  const ext = await row(
    ds,
    `SELECT min_x AS x0, max_x AS x1, min_y AS y0, max_y AS y1 FROM gpkg_contents WHERE table_name = ${quoteText(table)}`,
  );
  const page = await row(ds, 'PRAGMA page_size');
  const count = await row(ds, `SELECT count(*) AS n FROM ${quoteId(table)}`);
  const maxAbs = Math.max(...['x0', 'x1', 'y0', 'y1'].map((k) => Math.abs(Number(ext?.[k] ?? 0)) || 0));
  return {
    geomColumn: typeof geom?.c === 'string' ? geom.c : undefined,
    fidColumn: pk.length === 1 && typeof pk[0].c === 'string' ? pk[0].c : undefined,
    maxAbs,
    pageSize: Number(page?.page_size),
    rows: Number(count?.n) || 0,
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
  ).catch(() => undefined); // an integer overflow (coordinates beyond the recorded extent) means they differ
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

/**
 * Rows per INSERT. Small statements: SQLite's parse of a long VALUES list is large and the thread pool's allocators
 * keep it; with 50,000 rowid rows per statement indexing a million points peaked at 470 MB RSS, with 1,000 at 276 MB
 * and a little faster.
 */
const NODES_PER_INSERT = 20;
const ROWIDS_PER_INSERT = 1_000;

/** Entry indexes by ascending fid, or null when the entries already are (PostgreSQL mostly returns them so). */
function fidOrder(entries: RtreeEntries): Uint32Array | null {
  const { fid } = entries;
  for (let i = 1; i < fid.length; i++)
    if (fid[i] < fid[i - 1]) {
      const order = new Uint32Array(entries.count);
      for (let j = 0; j < order.length; j++) order[j] = j;
      return order.sort((a, b) => fid[a] - fid[b]);
    }
  return null;
}

/** Writes the packed tree into the rtree's shadow tables (root node 1, every other node's parent, every fid's leaf). */
async function writeTree(ds: gdal.Dataset, name: string, t: PackedRtree, entries: RtreeEntries, signal?: AbortSignal): Promise<void> {
  const buf = Buffer.alloc(t.nodeBytes);
  let values: string[] = [];
  const flush = async (table: string, force: boolean, limit: number) => {
    if (values.length && (force || values.length >= limit)) {
      signal?.throwIfAborted();
      await exec(ds, `INSERT OR REPLACE INTO ${quoteId(`${name}_${table}`)} VALUES ${values.join(',')}`);
      values = [];
    }
  };
  for (let k = t.levels.length - 1; k >= 0; k--)
    for (let g = 0; g + 1 < t.levels[k].start.length; g++) {
      values.push(`(${t.base[k] + g},X'${encodeNode(t, entries, k, g, buf).toString('hex')}')`);
      await flush('node', false, NODES_PER_INSERT);
    }
  await flush('node', true, 0);
  for (let k = 0; k + 1 < t.levels.length; k++)
    for (let g = 0; g + 1 < t.levels[k + 1].start.length; g++)
      for (let j = t.levels[k + 1].start[g]; j < t.levels[k + 1].start[g + 1]; j++) {
        values.push(`(${t.base[k] + t.levels[k + 1].order[j]},${t.base[k + 1] + g})`);
        await flush('parent', false, ROWIDS_PER_INSERT);
      }
  await flush('parent', true, 0);
  // In fid order: SQLite appends to the rowid table's B-tree instead of inserting all over it (2.5 s → 1.25 s per
  // million rows, measured).
  const leaves = t.levels[0];
  const leafOf = new Uint32Array(entries.count);
  for (let g = 0; g + 1 < leaves.start.length; g++) for (let j = leaves.start[g]; j < leaves.start[g + 1]; j++) leafOf[leaves.order[j]] = g;
  const byFid = fidOrder(entries);
  for (let j = 0; j < entries.count; j++) {
    const i = byFid ? byFid[j] : j;
    values.push(`(${entries.fid[i]},${t.base[0] + leafOf[i]})`);
    await flush('rowid', false, ROWIDS_PER_INSERT);
  }
  await flush('rowid', true, 0);
}

/** GDAL's own index: what every case the packed index does not cover gets. */
async function gdalIndex(ds: gdal.Dataset, table: string, geom: string): Promise<void> {
  await exec(ds, `SELECT CreateSpatialIndex(${quoteText(table)}, ${quoteText(geom)})`);
}

/**
 * Adds the spatial index to a layer of the closed GeoPackage at `path`, written by GDAL from buildSelectSql with
 * SPATIAL_INDEX=NO and without reprojection (packsGpkgIndex). Returns who built it.
 */
export async function addGpkgRtree(path: string, layer: GpkgRtreeLayer, ctx: GpkgRtreeContext): Promise<'packed' | 'gdal'> {
  const ds = await gdal.openAsync(path, 'r+', ['GPKG']);
  try {
    const d = await describe(ds, layer.table);
    if (!d.geomColumn) throw new Error(`GeoPackage layer '${layer.table}' has no geometry column`);
    const oidField = layer.source.fields.find((f) => f.type === 'esriFieldTypeOID');
    // GDAL's FID option named the OID field: the fids are the OID column's values (else GDAL numbered them).
    if (!oidField || d.fidColumn !== oidField.name || !(d.pageSize >= 1024)) {
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    const client = await openSession(ctx.pg, ctx.sessionName);
    let read: Awaited<ReturnType<typeof readRtreeEntries>>;
    try {
      read = await readRtreeEntries(client, buildRtreeEntriesSql(layer.source, oidField.column), d.rows, sumScale(d.maxAbs), ctx.signal);
    } finally {
      await closeSession(client);
    }
    if (!read?.entries.count || !(await sameEntries(ds, layer.table, d.geomColumn, d.fidColumn, read.sums))) {
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    const statements = await gdalIndexStatements(ctx.scratch, layer.table, d.geomColumn, d.fidColumn);
    const tree = packRtree(read.entries, d.pageSize);
    const name = `rtree_${layer.table}_${d.geomColumn}`;
    await exec(ds, 'BEGIN');
    await exec(ds, `CREATE VIRTUAL TABLE ${quoteId(name)} USING rtree(id, minx, maxx, miny, maxy)`);
    await writeTree(ds, name, tree, read.entries, ctx.signal);
    for (const s of statements) await exec(ds, s);
    await exec(ds, 'COMMIT');
    return 'packed';
  } finally {
    ds.close();
  }
}

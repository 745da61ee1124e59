/**
 * The spatial index of a GeoPackage layer GDAL wrote with SPATIAL_INDEX=NO, packed here instead of filled by GDAL
 * 3.6 one rtree insert at a time, which took longer than the translate itself (README.md).
 *
 * Every assumption is checked against the file, and GDAL builds the index itself when one does not hold: the fid
 * column must be the OID column, and the GeoPackage must hold exactly the fids and coordinates PostGIS gives now
 * (integer sums of both, computed on each side; rows edited since GDAL read them, or a reprojection, show there).
 * The triggers and the extension row are copied from a GeoPackage GDAL makes with the same names, so edits made
 * later through any GeoPackage client keep the index as GDAL's own would. The entries stream in leaf order and are
 * written a leaf at a time, so the checks come after the writing, inside one SQLite transaction rolled back when
 * they fail.
 */
import { rm } from 'node:fs/promises';
import * as gdal from 'gdal-async';
import type { Client } from 'pg';
import { copyRows, CopyRowsReader } from '../copy/copy-rows';
import { closeSession, openSession } from '../pg-session';
import { encodeLeaf, encodeUpper, packUpper, rtreeShape, RtreeShape, sliceSize } from './gpkg-rtree-pack';
import { EntrySums, streamRtreeLeaves, sumScale } from './gpkg-rtree-source';
import { buildRtreeCountSql, buildRtreeEntriesSql } from './rtree-sql';
import { ExportLayerSource } from '../types';

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
 * Node rows per INSERT (a node is at most 1,228 bytes, 2.5 KB as a hex literal). Small statements: SQLite's parse of
 * a long VALUES list is large and the thread pool's allocators keep it.
 */
const NODES_PER_INSERT = 20;
/** SQLite's page cache while the index is built, in KiB. */
const RTREE_CACHE_KIB = 8192;
/**
 * Rowid rows per INSERT, as one JSON array that SQLite's json_each reads: less than a third of the bytes of as many
 * `(fid,node)` VALUES, which GDAL's ExecuteSQL reads every byte of, and no JavaScript string or promise per row, whose
 * short-lived garbage grew the worker's heap. 10,000 node numbers stay under 128 KB, V8's limit for the young generation.
 */
const ROWIDS_PER_INSERT = 10_000;
/** Leaves per rowid INSERT in leaf order: one json_each of fids per leaf, joined by UNION ALL (SQLite allows 500). */
const LEAVES_PER_INSERT = 100;
/** Parent rows per INSERT: one per node below the root, leaves included (about 100,000 for 5M points). */
const PARENTS_PER_INSERT = 1_000;

/**
 * Rowid rows are written in fid order when the fids span under this many slots per entry (4 bytes each, so at most
 * 8 bytes per entry): SQLite then appends to the rowid table's B-tree instead of inserting all over it as leaf order
 * does. Sparser fids go in leaf order.
 */
const DENSE_FIDS = 2;

/**
 * Runs one table's INSERTs one at a time, the next built while SQLite runs the last (on two cores the leaves are
 * read and encoded meanwhile instead of after). Each row is a VALUES tuple, or with `selects` a SELECT of rows.
 */
class Inserts {
  private values: string[] = [];
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly ds: gdal.Dataset,
    private readonly table: string,
    private readonly limit: number,
    private readonly signal?: AbortSignal,
    private readonly selects = false,
  ) {}

  /**
   * Every statement starts INSERT ... SELECT: GDAL's ExecuteSQL looks for "SELECT " case-insensitively, to the end
   * of a statement that has none (a plain INSERT ... VALUES), and the nodes' statements are 50 KB of hex.
   */
  private statement(): string {
    const into = `INSERT OR REPLACE INTO ${quoteId(this.table)}`;
    return this.selects ? `${into} ${this.values.join(' UNION ALL ')}` : `${into} SELECT * FROM (VALUES ${this.values.join(',')})`;
  }

  async add(value: string): Promise<void> {
    this.values.push(value);
    if (this.values.length >= this.limit) await this.flush();
  }

  /** Starts the batch once the last has finished; `done` waits for it too. */
  async flush(): Promise<void> {
    if (!this.values.length) return;
    const sql = this.statement();
    this.values = [];
    await this.running;
    this.signal?.throwIfAborted();
    // A flush waiting above when the entries failed must not start a statement after the ROLLBACK.
    if (this.stopped) throw new Error('R-tree entries: writing stopped');
    this.running = exec(this.ds, sql);
    this.running.catch(() => undefined); // awaited by the next flush or by done()
  }

  async done(): Promise<void> {
    await this.flush();
    await this.running;
  }

  /** Drops what is not started and waits for what is (a ROLLBACK must come after it). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.values = [];
    await this.running?.catch(() => undefined);
  }
}

/**
 * Writes the tree into the rtree's shadow tables: each leaf's node and rowid rows as the leaf arrives (keeping only
 * its box), then the levels above, packed from the leaves' boxes, and every node's parent.
 */
class TreeWriter {
  private readonly nodes: Inserts;
  private readonly rowids: Inserts;
  private readonly buf: Buffer;
  readonly leafBox: Float32Array;
  private leaves = 0;
  /** Each fid's leaf, by fid - minFid (0: no entry), when the fids are dense enough to hold so. */
  private readonly leafOf?: Uint32Array;

  constructor(
    private readonly ds: gdal.Dataset,
    private readonly name: string,
    private readonly shape: RtreeShape,
    private readonly fids: { count: number; min: number; max: number },
    private readonly signal?: AbortSignal,
  ) {
    if (fids.max - fids.min < DENSE_FIDS * fids.count) this.leafOf = new Uint32Array(fids.max - fids.min + 1);
    this.nodes = new Inserts(ds, `${name}_node`, NODES_PER_INSERT, signal);
    this.rowids = new Inserts(ds, `${name}_rowid`, LEAVES_PER_INSERT, signal, true);
    this.buf = Buffer.alloc(shape.nodeBytes);
    this.leafBox = new Float32Array(shape.counts[0] * 4);
  }

  readonly leaf = async (n: number, fid: Float64Array, box: Float32Array): Promise<void> => {
    const g = this.leaves++;
    if (g >= this.shape.counts[0]) throw new Error('R-tree entries: more leaves than counted');
    const node = this.shape.base[0] + g;
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (let j = 0; j < n; j++) {
      x0 = Math.min(x0, box[j * 4]);
      x1 = Math.max(x1, box[j * 4 + 1]);
      y0 = Math.min(y0, box[j * 4 + 2]);
      y1 = Math.max(y1, box[j * 4 + 3]);
    }
    this.leafBox.set([x0, x1, y0, y1], g * 4);
    await this.nodes.add(`(${node},X'${encodeLeaf(this.shape, n, fid, box, this.buf).toString('hex')}')`);
    const { leafOf } = this;
    // Fids are integers below 2^53: join prints them as JSON integers.
    if (!leafOf) await this.rowids.add(`SELECT value, ${node} FROM json_each('[${fid.subarray(0, n).join(',')}]')`);
    else
      for (let j = 0; j < n; j++) {
        const i = fid[j] - this.fids.min;
        if (!(i >= 0 && i < leafOf.length)) throw new Error(`R-tree entries: fid ${fid[j]} outside the counted range`);
        leafOf[i] = node;
      }
  };

  /** Waits for the leaves' rows to be written. */
  async leavesWritten(): Promise<void> {
    await this.nodes.done();
    await this.rowids.done();
  }

  async finish(): Promise<void> {
    const { shape, leafBox, leafOf } = this;
    if (this.leaves !== shape.counts[0]) throw new Error(`R-tree entries: ${this.leaves} leaves, ${shape.counts[0]} counted`);
    if (leafOf) {
      const rowids = new Inserts(this.ds, `${this.name}_rowid`, 1, this.signal, true);
      for (let a = 0; a < leafOf.length; a += ROWIDS_PER_INSERT) {
        const slots = leafOf.subarray(a, a + ROWIDS_PER_INSERT).join(',');
        await rowids.add(`SELECT key + ${this.fids.min + a}, value FROM json_each('[${slots}]') WHERE value <> 0`);
      }
      await rowids.done();
    }
    const upper = packUpper(shape, leafBox);
    for (let k = upper.length; k >= 1; k--)
      for (let g = 0; g < shape.counts[k]; g++)
        await this.nodes.add(`(${shape.base[k] + g},X'${encodeUpper(shape, upper, leafBox, k, g, this.buf).toString('hex')}')`);
    await this.nodes.done();
    const parents = new Inserts(this.ds, `${this.name}_parent`, PARENTS_PER_INSERT, this.signal);
    for (let k = 1; k <= upper.length; k++) {
      const { order, start } = upper[k - 1];
      for (let g = 0; g < shape.counts[k]; g++)
        for (let j = start[g]; j < start[g + 1]; j++) await parents.add(`(${shape.base[k - 1] + order[j]},${shape.base[k] + g})`);
    }
    await parents.done();
  }

  /** Waits for the INSERTs still running (before a ROLLBACK). */
  async stop(): Promise<void> {
    await Promise.all([this.nodes.stop(), this.rowids.stop()]);
  }
}

/** GDAL's own index: what every case the packed index does not cover gets. */
async function gdalIndex(ds: gdal.Dataset, table: string, geom: string): Promise<void> {
  await exec(ds, `SELECT CreateSpatialIndex(${quoteText(table)}, ${quoteText(geom)})`);
}

/** The R-tree's entries, queried while GDAL still writes the GeoPackage, so that PostgreSQL sorts them meanwhile. */
export interface RtreeEntries {
  client: Client;
  /** Entries in the query's snapshot, and their fid range. */
  count: number;
  min: number;
  max: number;
  /** The page size the leaves are sized for. */
  pageSize: number;
  /** The entries in leaf order (none when there are no entries). */
  rows?: CopyRowsReader;
}

/** GDAL's GeoPackage page size (SQLite's default), for which the entries are sliced before the file exists. */
const GPKG_PAGE_SIZE = 4096;

/**
 * Counts the layer's R-tree entries and starts their query (buildRtreeEntriesSql), in a snapshot of their own: the
 * rows wait in PostgreSQL, sorted, until addGpkgRtree reads them, so the sort is no longer part of the index step.
 */
export async function startRtreeEntries(source: ExportLayerSource, ctx: GpkgRtreeContext): Promise<RtreeEntries> {
  const oidField = source.fields.find((f) => f.type === 'esriFieldTypeOID');
  if (!oidField) throw new Error(`Layer '${source.name}' has no OID field for a packed spatial index`);
  // The query waits, unread, for as long as the translate takes: no statement timeout of the database's may end it.
  const client = await openSession(ctx.pg, ctx.sessionName, ['SET statement_timeout = 0']);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const c = (await client.query<{ n: string; min: string | null; max: string | null }>(buildRtreeCountSql(source, oidField.column)))
      .rows[0];
    const entries: RtreeEntries = { client, count: Number(c.n), min: Number(c.min), max: Number(c.max), pageSize: GPKG_PAGE_SIZE };
    if (entries.count > 0) {
      const cap = rtreeShape(entries.count, GPKG_PAGE_SIZE).cap;
      entries.rows = copyRows(client, buildRtreeEntriesSql(source, oidField.column, sliceSize(entries.count, cap)));
      // Read once the GeoPackage is written: a failure meanwhile reaches that reader.
      entries.rows.on('error', () => undefined);
    }
    return entries;
  } catch (e) {
    await closeSession(client);
    throw e;
  }
}

/** Ends the entries' query and session, read or not. */
export async function stopRtreeEntries(entries: RtreeEntries | undefined): Promise<void> {
  if (!entries) return;
  entries.rows?.destroy();
  await closeSession(entries.client);
}

/**
 * Adds the spatial index to a layer of the closed GeoPackage at `path`, written by GDAL from buildSelectSql with
 * SPATIAL_INDEX=NO and without reprojection (packsGpkgIndex), from the entries startRtreeEntries began (which it
 * ends), or from a query of its own. Returns who built it.
 */
export async function addGpkgRtree(
  path: string,
  layer: GpkgRtreeLayer,
  ctx: GpkgRtreeContext,
  started?: RtreeEntries,
): Promise<'packed' | 'gdal'> {
  let entries = started;
  let ds: gdal.Dataset;
  try {
    ds = await gdal.openAsync(path, 'r+', ['GPKG']);
  } catch (e) {
    await stopRtreeEntries(entries);
    throw e;
  }
  try {
    // The index is written in append order and the table read once for the check: a page cache of GDAL's size
    // (OGR_SQLITE_CACHE, for the translate) only took the worker's memory that much higher.
    await exec(ds, `PRAGMA cache_size = -${RTREE_CACHE_KIB}`);
    const d = await describe(ds, layer.table);
    if (!d.geomColumn) throw new Error(`GeoPackage layer '${layer.table}' has no geometry column`);
    const oidField = layer.source.fields.find((f) => f.type === 'esriFieldTypeOID');
    // The rowids are written through json_each: built into SQLite since 3.38 and by most builds before.
    const json = await row(ds, `SELECT count(*) AS n FROM json_each('[1]')`).catch(() => undefined);
    // GDAL's FID option named the OID field: the fids are the OID column's values (else GDAL numbered them).
    if (!oidField || d.fidColumn !== oidField.name || !(d.pageSize >= 1024) || Number(json?.n) !== 1) {
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    const statements = await gdalIndexStatements(ctx.scratch, layer.table, d.geomColumn, d.fidColumn);
    const name = `rtree_${layer.table}_${d.geomColumn}`;
    if (entries && entries.pageSize !== d.pageSize) {
      await stopRtreeEntries(entries);
      entries = undefined;
    }
    entries ??= await startRtreeEntries(layer.source, ctx);
    let sums: EntrySums | undefined;
    let writer: TreeWriter | undefined;
    try {
      const n = entries.count;
      // No rows, or more than GDAL wrote: GDAL's index (an empty one, or the check below would fail anyway).
      if (n > 0 && n <= d.rows && entries.rows) {
        const shape = rtreeShape(n, d.pageSize);
        await exec(ds, 'BEGIN');
        await exec(ds, `CREATE VIRTUAL TABLE ${quoteId(name)} USING rtree(id, minx, maxx, miny, maxy)`);
        writer = new TreeWriter(ds, name, shape, { count: n, min: entries.min, max: entries.max }, ctx.signal);
        sums = await streamRtreeLeaves(entries.rows, n, shape.cap, sumScale(d.maxAbs), writer.leaf, ctx.signal);
        await writer.leavesWritten();
      }
    } catch (e) {
      await writer?.stop();
      if (writer) await exec(ds, 'ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      await stopRtreeEntries(entries);
      entries = undefined;
    }
    if (!writer || !sums || !(await sameEntries(ds, layer.table, d.geomColumn, d.fidColumn, sums))) {
      if (writer) await exec(ds, 'ROLLBACK');
      await gdalIndex(ds, layer.table, d.geomColumn);
      return 'gdal';
    }
    // Nothing may still run on the dataset when it is rolled back or closed.
    await writer.finish().catch(async (e: unknown) => {
      await writer.stop();
      await exec(ds, 'ROLLBACK').catch(() => undefined);
      throw e;
    });
    for (const s of statements) await exec(ds, s);
    await exec(ds, 'COMMIT');
    return 'packed';
  } finally {
    await stopRtreeEntries(entries);
    ds.close();
  }
}

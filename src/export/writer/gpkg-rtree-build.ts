/**
 * The packed spatial index of a GeoPackage layer, built while GDAL is still writing the layer (gpkg-rtree.ts adds it
 * to the file afterwards). PostgreSQL counts and sorts the entries in a snapshot of its own, and they are written
 * into the three tables of SQLite's rtree module in a scratch SQLite file: GDAL's translate keeps about one core of
 * two busy, so the sort, the packing and SQLite's writing run beside it instead of after it. What follows the
 * translate went from 0.58 to 0.21 s for 100,000 polygons, but on two cores the translate itself runs slower beside
 * the build: writeExport alone, taking turns with writing the index afterwards, 100,000 polygons 2.91 → 2.74 s and
 * 1M points 9.69 → 9.14 s (medians); peak RSS for 1M points 198 → 238 MB (both working sets at once), for the 5M
 * points of the export benchmark 297 → 268 MB (the index step after the translate had been the peak). Rows edited
 * meanwhile are caught by the check sums.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as gdal from 'gdal-async';
import { copyRows, type CopyRowsReader } from './copy-rows';
import { closeSession, openSession } from './pg-session';
import { encodeLeaf, encodeUpper, packUpper, rtreeShape, RtreeShape, sliceSize } from './gpkg-rtree-pack';
import { EntrySums, streamRtreeLeaves, sumScale } from './gpkg-rtree-source';
import { exec, quoteId } from './gpkg-sql';
import { buildRtreeCountSql, buildRtreeEntriesSql } from './sql';
import type { ExportLayerSource } from './types';

export interface GpkgRtreeContext {
  pg: string;
  sessionName: string;
  /** A directory for the template GeoPackage (the export's stage). */
  scratch: string;
  signal?: AbortSignal;
}

/** SQLite's page cache while an index is written, in KiB: it is written in append order, and read once. */
export const RTREE_CACHE_KIB = 8192;

/** GDAL's GeoPackage page size (SQLite's default), for which the tree is built before the file exists. */
export const GPKG_PAGE_SIZE = 4096;

/** The rtree table of the scratch file; its shadow tables are `${SCRATCH_TREE}_node`, `_rowid` and `_parent`. */
const SCRATCH_TREE = 'entries';

/**
 * Rows per INSERT. Small statements: SQLite's parse of a long VALUES list is large and the thread pool's allocators
 * keep it; with 50,000 rowid rows per statement indexing a million points peaked at 470 MB RSS, with 1,000 at 276 MB
 * and a little faster.
 */
const NODES_PER_INSERT = 20;
const ROWIDS_PER_INSERT = 1_000;

/**
 * Rowid rows are written in fid order when the fids span under this many slots per entry (4 bytes each, so at most
 * 8 bytes per entry, 40 MB for five million): SQLite then appends to the rowid table's B-tree instead of inserting all
 * over it as leaf order does (a million points 6.5 s instead of 7.0 s, measured). Sparser fids go in leaf order.
 */
const DENSE_FIDS = 2;

/** Batches rows of one shadow table into INSERTs of `limit` rows. */
class Inserts {
  private values: string[] = [];

  constructor(
    private readonly ds: gdal.Dataset,
    private readonly table: string,
    private readonly limit: number,
    private readonly signal?: AbortSignal,
  ) {}

  async add(value: string): Promise<void> {
    this.values.push(value);
    if (this.values.length >= this.limit) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.values.length) return;
    this.signal?.throwIfAborted();
    const sql = `INSERT OR REPLACE INTO ${quoteId(this.table)} VALUES ${this.values.join(',')}`;
    this.values = [];
    await exec(this.ds, sql);
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
    this.rowids = new Inserts(ds, `${name}_rowid`, ROWIDS_PER_INSERT, signal);
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
    if (!leafOf) for (let j = 0; j < n; j++) await this.rowids.add(`(${fid[j]},${node})`);
    else
      for (let j = 0; j < n; j++) {
        const i = fid[j] - this.fids.min;
        if (!(i >= 0 && i < leafOf.length)) throw new Error(`R-tree entries: fid ${fid[j]} outside the counted range`);
        leafOf[i] = node;
      }
  };

  async finish(): Promise<void> {
    const { shape, leafBox } = this;
    if (this.leaves !== shape.counts[0]) throw new Error(`R-tree entries: ${this.leaves} leaves, ${shape.counts[0]} counted`);
    if (this.leafOf)
      for (let i = 0; i < this.leafOf.length; i++) if (this.leafOf[i]) await this.rowids.add(`(${this.fids.min + i},${this.leafOf[i]})`);
    await this.rowids.flush();
    const upper = packUpper(shape, leafBox);
    for (let k = upper.length; k >= 1; k--)
      for (let g = 0; g < shape.counts[k]; g++)
        await this.nodes.add(`(${shape.base[k] + g},X'${encodeUpper(shape, upper, leafBox, k, g, this.buf).toString('hex')}')`);
    await this.nodes.flush();
    const parents = new Inserts(this.ds, `${this.name}_parent`, ROWIDS_PER_INSERT, this.signal);
    for (let k = 1; k <= upper.length; k++) {
      const { order, start } = upper[k - 1];
      for (let g = 0; g < shape.counts[k]; g++)
        for (let j = start[g]; j < start[g + 1]; j++) await parents.add(`(${shape.base[k - 1] + order[j]},${shape.base[k] + g})`);
    }
    await parents.flush();
  }
}

/** A tree written into a scratch file, ready to be copied into the GeoPackage. */
export interface BuiltRtree {
  /** The scratch SQLite file, in the context's scratch directory. */
  path: string;
  /** Its rtree table (SQLite's own shadow tables, so the same definitions as the GeoPackage's). */
  table: string;
  /** The page size the nodes are sized for. */
  pageSize: number;
  /** What the GeoPackage must hold for the tree to be its index. */
  sums: EntrySums;
}

/** An index being built: `done` gives the tree (undefined when the layer has no entries), or the failure. */
export interface RtreeBuild {
  done: Promise<BuiltRtree | undefined>;
  /** Ends the build (its query and session) and waits for it, leaving no scratch file: for a translate that failed. */
  stop(): Promise<void>;
}

/** Starts building the R-tree of a layer with an OID field (packsGpkgIndex), see the file's comment. */
export function startRtreeBuild(source: ExportLayerSource, ctx: GpkgRtreeContext): RtreeBuild {
  const stopping = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stopping.signal]) : stopping.signal;
  const done = buildTree(source, { ...ctx, signal });
  done.catch(() => undefined); // read by whoever adds the index; a stop needs no result
  return {
    done,
    stop: async () => {
      stopping.abort();
      const built = await done.catch(() => undefined);
      if (built) await rm(built.path, { force: true });
    },
  };
}

async function buildTree(source: ExportLayerSource, ctx: GpkgRtreeContext & { signal: AbortSignal }): Promise<BuiltRtree | undefined> {
  const oidField = source.fields.find((f) => f.type === 'esriFieldTypeOID');
  if (!oidField) throw new Error(`Layer '${source.name}' has no OID field for a packed spatial index`);
  // The entries are read as fast as SQLite takes them, while the translate runs: no statement timeout may end it.
  const client = await openSession(ctx.pg, ctx.sessionName, ['SET statement_timeout = 0']);
  let entries: CopyRowsReader | undefined;
  const onAbort = () => void closeSession(client); // ends a count still running; the stream below stops itself
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    ctx.signal.throwIfAborted();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const c = (await client.query<{ n: string; min: string; max: string; max_abs: number }>(buildRtreeCountSql(source, oidField.column)))
      .rows[0];
    const count = Number(c.n);
    if (count === 0) return undefined;
    const shape = rtreeShape(count, GPKG_PAGE_SIZE);
    entries = copyRows(client, buildRtreeEntriesSql(source, oidField.column, sliceSize(count, shape.cap)));
    entries.on('error', () => undefined); // reported through the pipeline that reads it
    const path = join(ctx.scratch, `.rtree-${randomUUID()}.sqlite`);
    const ds = await gdal.drivers.get('SQLite').createAsync(path, 0, 0, 0, gdal.GDT_Unknown, ['METADATA=NO']);
    try {
      await exec(ds, `PRAGMA cache_size = -${RTREE_CACHE_KIB}`);
      await exec(ds, `CREATE VIRTUAL TABLE ${quoteId(SCRATCH_TREE)} USING rtree(id, minx, maxx, miny, maxy)`);
      await exec(ds, 'BEGIN');
      const writer = new TreeWriter(ds, SCRATCH_TREE, shape, { count, min: Number(c.min), max: Number(c.max) }, ctx.signal);
      const sums = await streamRtreeLeaves(entries, count, shape.cap, sumScale(Number(c.max_abs)), writer.leaf, ctx.signal);
      await writer.finish();
      await exec(ds, 'COMMIT');
      return { path, table: SCRATCH_TREE, pageSize: GPKG_PAGE_SIZE, sums };
    } finally {
      ds.close();
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    entries?.destroy();
    await closeSession(client);
  }
}

/**
 * A large layer's shapefile written in parts: GDAL translates consecutive OID ranges into shapefiles of their own,
 * one translate per core at a time, and shapefile-merge.ts joins them, in order, into the file GDAL would have
 * written for the whole layer (the tests compare them byte for byte).
 *
 * Why: one translate keeps about one core busy (GDAL and its PostgreSQL backend take turns over the cursor, and a
 * third of GDAL's time is system calls: shapelib seeks and writes once per record and field block), so two run in
 * about the time of one. And shapelib holds every record's offset and size until the file closes, then builds the
 * whole .shx in one buffer (16 bytes a record); a part holds only its own.
 *
 * GDAL's PostgreSQL driver opens a transaction of its own per query, so the parts cannot share a snapshot as the
 * COPY sessions do (GDAL 3.6 ignores PRELUDE_STATEMENTS). Instead the layer's data version (a count of committed
 * edit statements, data-version.ts) is read before the first part and after the last: unchanged, every part read the
 * same rows a single snapshot would have; changed, the parts are thrown away and the layer is written whole. As with
 * the COPY sessions, a where clause reading the clock is evaluated at each part's own start.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type * as gdal from 'gdal-async';
import type { Client } from 'pg';
import { SqlParams } from '../../../core/database/sql-params';
import { dataVersionSql } from '../../../layers/data-version';
import { buildTranslateArgs } from '../gdal/args';
import { ResolvedSrs } from '../srs';
import { oidRanges } from '../copy/oid-ranges';
import { oidBoundsSql, rangeFilter, OidRange } from '../copy/copy-format';
import { checkShapefileSizes } from '../limits';
import { PARALLEL_SESSIONS, withSession } from '../pg-session';
import { allSettledOrThrow } from '../settle';
import { TICK_MS } from '../progress';
import { dbfRecordsWritten } from './shapefile';
import { ShapefileMerger } from './shapefile-merge';
import { openPg } from '../source';
import { translateLayer } from '../gdal/translate';
import { ExportLayerSource, ShapefileSplit } from '../types';

/**
 * Parts of 250,000 rows: shapelib holds 4 MB for one. Layers of one part's size or less are written whole: with
 * bigger rows the two translates already fill both cores, and the zip, which deflates a whole translate's files on
 * the idle core while it runs (zip-ahead.ts), then waits for the joined file (README.md has the measurements).
 */
export const SHAPEFILE_SPLIT: ShapefileSplit = { minRows: 250_001, partRows: 250_000 };

export interface ShapefilePartsJob {
  layer: ExportLayerSource;
  layerName: string;
  target: ResolvedSrs | null;
  rows: number;
  /** The job's GDAL connection (exportConnection), and its "PG:..." string and session name for node-postgres. */
  conn: string;
  pg: string;
  sessionName: string;
  /** Where the layer's shapefile goes, and a folder of the export's own for the parts. */
  dir: string;
  scratch: string;
  split?: ShapefileSplit;
  /** An open source the first translate may use (the job's, idle while the layer is written). */
  source?: gdal.Dataset;
  signal?: AbortSignal;
  onRows?: (rows: number) => void;
}

/** How a split layer is to be written: its ranges and the data version they must all be read at. */
export interface ShapefilePlan {
  job: ShapefilePartsJob;
  ranges: OidRange[];
  version: string;
}

/**
 * Translates at once: one per core, but two at most. gdal-async runs each on libuv's thread pool (4 threads unless
 * UV_THREADPOOL_SIZE says otherwise), which the joiner's file reads and writes and the zip's deflating share: four
 * translates would hold every thread until one ended.
 */
const LANES = Math.min(2, PARALLEL_SESSIONS);
/** Parts written ahead of the joiner per lane: a slow part does not let the others fill the disk with the rest. */
const AHEAD_PER_LANE = 2;

/**
 * The plan for writing the layer in parts, or null to write it whole: small layers, layers without an OID, or
 * whose edits are not counted (no version to check the parts against).
 */
export async function planShapefileParts(job: ShapefilePartsJob): Promise<ShapefilePlan | null> {
  const split = job.split ?? SHAPEFILE_SPLIT;
  const bounds = oidBoundsSql(job.layer);
  if (!bounds || job.rows < split.minRows) return null;
  const { lo, hi, version } = await withSession(job.pg, job.sessionName, (s) => readState(s, job.layer, bounds));
  if (version === null || lo == null || hi == null) return null;
  const parts = Math.max(LANES, Math.ceil(job.rows / split.partRows));
  return { job, ranges: oidRanges(lo, hi, parts), version };
}

/** The layer's data version and (with `bounds`) its OID bounds, in one statement (one snapshot). */
async function readState(session: Client, layer: ExportLayerSource, bounds?: string) {
  const p = new SqlParams();
  const version = `(SELECT v FROM (${dataVersionSql(layer.schema, layer.table, p)}) AS dv)`;
  const sql = bounds ? `SELECT ${version} AS version, b.lo, b.hi FROM (${bounds}) AS b` : `SELECT ${version} AS version`;
  const { rows } = await session.query<{ lo?: number | null; hi?: number | null; version: string | null }>(sql, p.values);
  return rows[0];
}

/** A part's rows: the layer's where clause and its OID range. */
const partLayer = (layer: ExportLayerSource, range: OidRange): ExportLayerSource => ({ ...layer, where: rangeFilter(layer, range) });

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}
function deferred(): Deferred {
  const d = {} as Deferred;
  d.promise = new Promise<void>((resolve, reject) => Object.assign(d, { resolve, reject }));
  d.promise.catch(() => undefined); // awaited by the joiner, or left when it has stopped
  return d;
}

/**
 * Writes the planned parts and joins them into `<dir>/<layerName>.shp` etc. Resolves true when written, false when
 * the layer was edited meanwhile (nothing of it is left in dir: the caller writes it whole).
 */
export async function writeShapefileParts(plan: ShapefilePlan): Promise<boolean> {
  const { job, ranges } = plan;
  const partsDir = join(job.scratch, `.parts-${job.layerName}`);
  const partDir = (k: number) => join(partsDir, String(k));
  const merger = new ShapefileMerger(job.dir, job.layerName);
  const done = ranges.map(deferred);
  const joined = ranges.map(deferred);
  const started = new Set<number>();
  let next = 0;
  let failed = false;
  const lane = async (_: unknown, index: number) => {
    const own = !(index === 0 && job.source);
    let src: gdal.Dataset | undefined = own ? undefined : job.source;
    try {
      while (!failed && next < ranges.length) {
        job.signal?.throwIfAborted();
        const k = next++;
        if (k >= LANES * AHEAD_PER_LANE) await joined[k - LANES * AHEAD_PER_LANE].promise;
        src ??= await openPg(job.conn);
        await mkdir(partDir(k), { recursive: true });
        started.add(k);
        const args = buildTranslateArgs({
          layer: partLayer(job.layer, ranges[k]),
          format: 'shapefile',
          layerName: job.layerName,
          update: false,
          target: job.target,
        });
        try {
          await translateLayer(src, join(partDir(k), `${job.layerName}.shp`), args);
          done[k].resolve();
        } catch (e) {
          done[k].reject(e);
          throw e;
        }
      }
    } catch (e) {
      failed = true;
      done.forEach((d) => d.reject(e));
      throw e;
    } finally {
      if (own) src?.close();
    }
  };
  const joinParts = async () => {
    try {
      for (const [k, d] of done.entries()) {
        await d.promise;
        const part = await ShapefileMerger.partSizes(partDir(k), job.layerName);
        const sizes = merger.sizes;
        checkShapefileSizes(job.layerName, { shp: sizes.shp + part.shp, dbf: sizes.dbf + part.dbf }, 'written');
        await merger.append(partDir(k));
        started.delete(k);
        await rm(partDir(k), { recursive: true, force: true });
        joined[k].resolve();
        job.onRows?.(merger.rows);
      }
    } catch (e) {
      failed = true;
      joined.forEach((d) => d.reject(e));
      throw e;
    }
  };
  let reporting = false;
  const reportRows = async () => {
    if (reporting) return;
    reporting = true;
    try {
      // Read together, before the counts: a part joined meanwhile is then counted once.
      const [base, inFlight] = [merger.rows, [...started]];
      const counts = await Promise.all(inFlight.map((k) => dbfRecordsWritten(join(partDir(k), `${job.layerName}.dbf`))));
      if (!failed) job.onRows?.(base + counts.reduce<number>((a, n) => a + (n ?? 0), 0));
    } catch {
      // Progress is best effort; a rejection from an interval callback would go unhandled and end the worker.
    } finally {
      reporting = false;
    }
  };
  const ticker = setInterval(() => void reportRows(), TICK_MS);
  ticker.unref();
  try {
    const lanes = Array.from({ length: Math.min(LANES, ranges.length) }, lane);
    await allSettledOrThrow([...lanes, joinParts()]);
    await merger.finish();
    // A short session of its own: one held idle through the export could meet idle_session_timeout.
    const { version } = await withSession(job.pg, job.sessionName, (s) => readState(s, job.layer));
    if (version === plan.version) return true;
    await removeLayerFiles(job.dir, job.layerName);
    return false;
  } catch (e) {
    await removeLayerFiles(job.dir, job.layerName);
    throw e;
  } finally {
    failed = true;
    clearInterval(ticker);
    await merger.close();
    await rm(partsDir, { recursive: true, force: true });
  }
}

async function removeLayerFiles(dir: string, name: string): Promise<void> {
  await Promise.all(['shp', 'shx', 'dbf', 'cpg', 'prj'].map((ext) => rm(join(dir, `${name}.${ext}`), { force: true })));
}

/**
 * CSV, GeoJSON and Excel's sheets straight from PostgreSQL: the file is the output of COPY (SELECT ...) with each
 * row formatted in SQL (copy-format.ts, xlsx-sheet.ts), so no feature crosses into JavaScript or GDAL. Formatting
 * numbers is most of the work and runs in the backend, one core per backend: a large layer is split by OID into
 * ranges that parallel sessions reading one snapshot take as they come free; the first session writes its ranges
 * straight into the file, the others into files of their own that are appended to it (copyDocument).
 *
 * Measured on 1M points to CSV (2 cores): ogr2ogr 10.3 s, PostgreSQL's plain COPY 2.7 s; the formatted COPY
 * alone 5.5 s on one backend, about half that on two.
 */
import { open, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Client } from 'pg';
import type { ResolvedSrs } from './args';
import {
  antimeridianSql,
  COPY_SESSION,
  csvHeader,
  csvLinesSql,
  GEOJSON_SEPARATOR,
  GEOJSON_TAIL,
  geojsonFeaturesSql,
  geojsonHead,
  oidBoundsSql,
  OidRange,
  rangeCountSql,
} from './copy-format';
import { copyQueryToFile } from './copy-rows';
import { closeSession, openSession, PARALLEL_SESSIONS as SESSIONS, withSession } from './pg-session';
import { allSettledOrThrow } from './settle';
import { writeAll } from './write-all';
import { geometryOutput } from './sql';
import type { ExportLayerSource } from './types';

export type CopyFormat = 'csv' | 'geojson';

/** Read size when a range's file is appended: fewer, larger writes (64 KB pieces cost twice the CPU of 1 MiB). */
const APPEND_CHUNK = 1 << 20;
/** Below this many rows one session is quicker than starting a second. */
const PARALLEL_MIN_ROWS = 50_000;
/**
 * Rows per range of a layer split over parallel sessions (at most MAX_RANGES ranges), which take them as they come
 * free (copyDocument): with one range per session, one session slowed by the others sharing the two cores (the
 * worker reading, the API, the database's other work) had left the other idle for up to a third of the export (1M
 * points to CSV through the service: the two halves finished 1.69 and 2.75 s in).
 */
export const COPY_RANGE_ROWS = 125_000;
const MAX_RANGES = 16;

export interface CopyLayerJob {
  format: CopyFormat;
  layer: ExportLayerSource;
  /** The output layer name (GeoJSON's "name"). */
  layerName: string;
  /** CSV x/y or WKT in this SR; GeoJSON is always WGS84. */
  target: ResolvedSrs | null;
  /** The job's "PG:..." connection and the application_name of its sessions. */
  pg: string;
  sessionName: string;
  path: string;
  /** Rows the layer holds (measured or estimated), to decide on parallel sessions and ranges. */
  rows: number;
  /** Rows per range (default COPY_RANGE_ROWS). */
  rangeRows?: number;
  signal?: AbortSignal;
  onRows?: (rows: number) => void;
}

/**
 * Whether GDAL must write this layer instead: GeoJSON features crossing the antimeridian, which GDAL's RFC 7946
 * writer cuts in two (and points beyond it, which it refuses).
 */
export async function needsGdal(job: Pick<CopyLayerJob, 'format' | 'layer' | 'pg' | 'sessionName'>): Promise<boolean> {
  if (job.format !== 'geojson' || geometryOutput(job.layer, 'geojson') === 'none') return false;
  return withSession(job.pg, job.sessionName, async (client) => {
    const { rows } = await client.query<{ crosses: boolean }>(antimeridianSql(job.layer));
    return rows[0].crosses;
  });
}

/** Splits [lo, hi] into n ranges of OIDs (the filtered rows' OIDs are close to evenly spread in practice). */
export function oidRanges(lo: number, hi: number, n: number): OidRange[] {
  const step = Math.ceil((hi - lo + 1) / n);
  const out: OidRange[] = [];
  for (let from = lo; from <= hi; from += step) out.push({ from, to: Math.min(hi, from + step - 1) });
  return out;
}

/** The bounds query of a layer worth splitting over parallel sessions, or null for one session. */
function splitBy(job: CopyJob): string | null {
  return job.rows >= PARALLEL_MIN_ROWS && SESSIONS > 1 ? oidBoundsSql(job.layer) : null;
}

/** The layer's OID ranges: one per session for a counted document (each is counted by the session that reads it). */
async function ranges(client: Client, job: CopyJob, counted: boolean): Promise<(OidRange | undefined)[]> {
  const sql = splitBy(job);
  if (!sql) return [undefined];
  const { rows } = await client.query<{ lo: number | null; hi: number | null }>(sql);
  const { lo, hi } = rows[0];
  const n = counted ? SESSIONS : Math.min(MAX_RANGES, Math.max(SESSIONS, Math.ceil(job.rows / (job.rangeRows ?? COPY_RANGE_ROWS))));
  return lo === null || hi === null ? [undefined] : oidRanges(lo, hi, n);
}

/** What a layer's file is: the rows' pieces between a head and a tail. */
export interface CopyDocument {
  /** Session settings the SQL's number formatting depends on. */
  settings: string[];
  /** The text before the rows, given how many rows the file gets when `counted`, else the measured count. */
  head(rows: number): string;
  tail: string;
  /** What each row carries ahead of it for the row before (GeoJSON's comma); the file's first row gives it up. */
  separator: string;
  /** Whether the SQL and the head need rows counted per range, by the session (and in the snapshot) that reads them. */
  counted: boolean;
  /** The SELECT of one range's pieces; `rowsBefore` is the rows of the ranges before it (when counted). */
  sql(range: OidRange | undefined, rowsBefore: number): string;
}

export type CopyJob = Omit<CopyLayerJob, 'format' | 'layerName' | 'target'> & {
  /** Where the later ranges are written before being appended (default: beside path). */
  partsDir?: string;
};

/**
 * Opens one session per range, all reading one snapshot (the first session's, exported to the others), so that
 * ranges written in parallel are one consistent picture of the layer, and a range counted first holds the rows
 * that its session then reads. The other sessions connect while the first one is set up (a connection takes
 * 20-40 ms here), and are closed again when the layer turns out to need one.
 */
async function openSessions(job: CopyJob, doc: CopyDocument): Promise<{ sessions: Client[]; split: (OidRange | undefined)[] }> {
  const { settings } = doc;
  const more = splitBy(job) ? SESSIONS - 1 : 0;
  const others = Array.from({ length: more }, () => openSession(job.pg, job.sessionName, settings));
  others.forEach((o) => o.catch(() => undefined)); // awaited below, or closed when not needed
  const sessions: Client[] = [];
  try {
    sessions.push(await openSession(job.pg, job.sessionName, settings));
    await sessions[0].query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const split = await ranges(sessions[0], job, doc.counted);
    if (split.length > 1) {
      const { rows } = await sessions[0].query<{ id: string }>('SELECT pg_export_snapshot() AS id');
      for (const other of others.slice(0, Math.min(split.length, SESSIONS) - 1)) {
        const s = await other;
        sessions.push(s);
        await s.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await s.query(`SET TRANSACTION SNAPSHOT '${rows[0].id.replace(/[^0-9A-Fa-f-]/g, '')}'`);
      }
    }
    return { sessions, split };
  } catch (e) {
    await Promise.all(sessions.map(closeSession));
    throw e;
  } finally {
    // The sessions not taken (or not yet taken when this failed) are closed.
    await Promise.all(
      others.map((o) =>
        o.then(
          (c) => (sessions.includes(c) ? undefined : closeSession(c)),
          () => undefined,
        ),
      ),
    );
  }
}

/**
 * Writes one layer's document to job.path; resolves with the rows written. The first session takes the ranges from
 * the front and writes them straight into the file; the others take them from the back, into files of their own
 * appended at the end. Each takes its next range when it comes free, so a session slowed by the rest of the work on
 * the machine holds up no more than one range, and the worker copies about what the other sessions wrote.
 */
export async function copyDocument(job: CopyJob, doc: CopyDocument): Promise<number> {
  let sessions: Client[] = [];
  const parts: string[] = [];
  try {
    const opened = await openSessions(job, doc);
    sessions = opened.sessions;
    const split = opened.split;
    let [front, back] = [0, split.length]; // the ranges not taken yet: [front, back)
    const take = (k: number) => (front >= back ? -1 : k === 0 ? front++ : --back);
    const firsts = sessions.map((_, k) => take(k));
    const before = split.map(() => 0);
    let total = job.rows;
    if (doc.counted) {
      // A counted document has a range per session, counted by the session that reads it: the sessions share a
      // snapshot but not the start of their transactions, which a where clause on CURRENT_TIMESTAMP reads.
      const counts = split.map(() => 0);
      await Promise.all(
        firsts.map(async (i, k) => (counts[i] = (await sessions[k].query<{ n: number }>(rangeCountSql(job.layer, split[i]))).rows[0].n)),
      );
      counts.forEach((_, i) => (before[i] = i === 0 ? 0 : before[i - 1] + counts[i - 1]));
      total = counts.reduce((a, b) => a + b, 0);
    }
    await writeFile(job.path, doc.head(total), 'utf8');

    const done = split.map(() => 0);
    const report = (i: number, n: number) => {
      done[i] = n;
      job.onRows?.(done.reduce((a, b) => a + b, 0));
    };
    // The file's first row gives up the separator it carries for the row before it.
    const skip = doc.separator.length;
    const file = (i: number) => join(job.partsDir ?? dirname(job.path), `${basename(job.path)}.${i}`);
    const written = split.map(() => 0);
    let rows = 0; // in job.path so far
    let failed = false;
    const run = async (k: number) => {
      for (let i = firsts[k]; i >= 0 && !failed; i = take(k)) {
        if (k > 0) parts.push(file(i));
        written[i] = await copyQueryToFile(sessions[k], doc.sql(split[i], before[i]), k === 0 ? job.path : file(i), {
          append: k === 0,
          skipFirst: k === 0 && rows === 0 ? skip : 0,
          signal: job.signal,
          onRows: (n) => report(i, n),
        });
        if (k === 0) rows += written[i];
      }
    };
    await allSettledOrThrow(
      sessions.map((_, k) =>
        run(k).catch((e: unknown) => {
          failed = true; // the other sessions take no further ranges
          throw e;
        }),
      ),
    );
    // The ranges the other sessions wrote, in order.
    for (let i = front; i < split.length; i++) {
      await appendFile(file(i), rows === 0 && written[i] > 0 ? skip : 0, job.path, job.signal);
      await rm(file(i), { force: true });
      rows += written[i];
    }
    if (doc.tail) await writeFile(job.path, doc.tail, { flag: 'a' });
    job.onRows?.(rows);
    return rows;
  } finally {
    await Promise.all(sessions.map(closeSession));
    await Promise.all(parts.map((p) => rm(p, { force: true })));
  }
}

/**
 * Appends `from` (from byte `start`) to `to` through one buffer: streams read into a new buffer each time, and in
 * the worker that much memory coming and going (130 MB for 1M points' GeoJSON) kept V8 collecting its whole heap.
 */
async function appendFile(from: string, start: number, to: string, signal?: AbortSignal): Promise<void> {
  const [src, dst] = await Promise.all([open(from, 'r'), open(to, 'a')]);
  try {
    const buf = Buffer.allocUnsafe(APPEND_CHUNK);
    for (let pos = start; ;) {
      signal?.throwIfAborted();
      const { bytesRead } = await src.read(buf, 0, buf.length, pos);
      if (!bytesRead) return;
      await writeAll(dst, buf.subarray(0, bytesRead), null);
      pos += bytesRead;
    }
  } finally {
    await Promise.all([src.close(), dst.close()]);
  }
}

/** Writes one CSV or GeoJSON layer to job.path. */
export async function copyLayer(job: CopyLayerJob): Promise<void> {
  const csv = job.format === 'csv';
  await copyDocument(job, {
    settings: COPY_SESSION,
    head: () => (csv ? csvHeader(job.layer) : geojsonHead(job.layerName)),
    tail: csv ? '' : GEOJSON_TAIL,
    separator: csv ? '' : GEOJSON_SEPARATOR,
    counted: false,
    sql: (range) => (csv ? csvLinesSql(job.layer, job.target, range) : geojsonFeaturesSql(job.layer, range)),
  });
}

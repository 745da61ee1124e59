/**
 * CSV, GeoJSON and Excel's sheets straight from PostgreSQL: the file is the output of COPY (SELECT ...) with each
 * row formatted in SQL (copy-format.ts, xlsx-sheet.ts), so no feature crosses into JavaScript or GDAL. Formatting
 * numbers is most of the work and runs in the backend, one core per backend: a large layer is split by OID into
 * ranges that parallel sessions reading one snapshot take as they come free; the first session writes its ranges
 * straight into the file, the others into files of their own that are appended to it (copyDocument).
 */
import { open, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Client } from 'pg';
import { ResolvedSrs } from '../srs';
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
import { copyQueryToFile, dropSparePieces, givePiece, takePiece } from './copy-rows';
import { closeSession, openSession, PARALLEL_SESSIONS as SESSIONS, withSession } from '../pg-session';
import { fixedRanges, oidRanges, RangeSource, shrinkingRanges, wholeLayer } from './oid-ranges';
import { allSettledOrThrow } from '../settle';
import { writeAll } from '../write-all';
import { geometryOutput } from '../sql';
import { ExportLayerSource } from '../types';

export type CopyFormat = 'csv' | 'geojson';

/** Below this many rows one session is quicker than starting a second. */
const PARALLEL_MIN_ROWS = 50_000;
/**
 * Rows of the smallest ranges a layer split over parallel sessions is cut into (shrinkingRanges), the last ones
 * the sessions take: small enough that the sessions finish together, large enough for what each range costs, a
 * statement (and, taken from the back, a file) of its own.
 */
export const MIN_RANGE_ROWS = 16_384;

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
  /** Rows of the smallest range (default MIN_RANGE_ROWS). */
  rangeRows?: number;
  /** CSV: escape text a spreadsheet would run as a formula (default true; copy-format.ts csvText). */
  escapeFormulas?: boolean;
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

/** The bounds query of a layer worth splitting over parallel sessions, or null for one session. */
function splitBy(job: CopyJob): string | null {
  return job.rows >= PARALLEL_MIN_ROWS && SESSIONS > 1 ? oidBoundsSql(job.layer) : null;
}

/**
 * Where the layer's ranges come from, and how many sessions can use them: one range per session fixed in advance
 * for a counted document (each is counted by the session that reads it), else ranges cut as they are taken.
 */
async function rangeSource(client: Client, job: CopyJob, counted: boolean): Promise<{ source: RangeSource; sessions: number }> {
  const sql = splitBy(job);
  const bounds = sql ? (await client.query<{ lo: number | null; hi: number | null }>(sql)).rows[0] : null;
  if (!bounds || bounds.lo === null || bounds.hi === null) return { source: wholeLayer(), sessions: 1 };
  const { lo, hi } = bounds;
  if (counted) {
    const fixed = oidRanges(lo, hi, SESSIONS);
    return { source: fixedRanges(fixed), sessions: fixed.length };
  }
  const span = hi - lo + 1;
  const minSpan = Math.max(1, Math.ceil(((job.rangeRows ?? MIN_RANGE_ROWS) * span) / Math.max(job.rows, 1)));
  return { source: shrinkingRanges(lo, hi, minSpan, SESSIONS), sessions: Math.min(SESSIONS, span) };
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
 * Opens the sessions that write the layer, all reading one snapshot (the first session's, exported to the
 * others), so that ranges written in parallel are one consistent picture of the layer, and a range counted first
 * holds the rows that its session then reads. The other sessions connect while the first one is set up (a
 * connection takes as long as a small layer's COPY), and are closed again when the layer turns out to need one.
 */
async function openSessions(job: CopyJob, doc: CopyDocument): Promise<{ sessions: Client[]; source: RangeSource }> {
  const { settings } = doc;
  const more = splitBy(job) ? SESSIONS - 1 : 0;
  const others = Array.from({ length: more }, () => openSession(job.pg, job.sessionName, settings));
  others.forEach((o) => o.catch(() => undefined)); // awaited below, or closed when not needed
  const sessions: Client[] = [];
  try {
    sessions.push(await openSession(job.pg, job.sessionName, settings));
    await sessions[0].query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { source, sessions: useful } = await rangeSource(sessions[0], job, doc.counted);
    if (useful > 1) {
      const { rows } = await sessions[0].query<{ id: string }>('SELECT pg_export_snapshot() AS id');
      for (const other of others.slice(0, useful - 1)) {
        const s = await other;
        sessions.push(s);
        await s.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await s.query(`SET TRANSACTION SNAPSHOT '${rows[0].id.replace(/[^0-9A-Fa-f-]/g, '')}'`);
      }
    }
    return { sessions, source };
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

/** A range taken by a session: where it lies in the file, and what was written of it. */
interface Piece {
  range: OidRange | undefined;
  /** Rows of the file's ranges before this one (a counted document's). */
  before: number;
  /** Its own file, when it is appended at the end. */
  file?: string;
  rows: number;
}

/**
 * Writes one layer's document to job.path; resolves with the rows written. The first session takes the ranges from
 * the front and writes them straight into the file; the others take them from the back, into files of their own
 * appended at the end. Each takes its next range when it comes free, so a session slowed by the rest of the work on
 * the machine holds up no more than one range, and the worker copies about what the other sessions wrote.
 */
export async function copyDocument(job: CopyJob, doc: CopyDocument): Promise<number> {
  let sessions: Client[] = [];
  // Taken from the back, in the order taken: from the file's end towards its middle.
  const back: Piece[] = [];
  try {
    const opened = await openSessions(job, doc);
    sessions = opened.sessions;
    const taken: Piece[] = [];
    const take = (k: number): Piece | null => {
      const next = opened.source.take(k === 0);
      if (!next) return null;
      const piece: Piece = { range: next.range, before: 0, rows: 0 };
      if (k > 0) {
        piece.file = join(job.partsDir ?? dirname(job.path), `${basename(job.path)}.${taken.length}`);
        back.push(piece);
      }
      taken.push(piece);
      return piece;
    };
    const firsts = sessions.map((_, k) => take(k));
    let total = job.rows;
    if (doc.counted) {
      // A counted document has a range per session, counted by the session that reads it: the sessions share a
      // snapshot but not the start of their transactions, which a where clause on CURRENT_TIMESTAMP reads.
      const counts = await Promise.all(
        firsts.map(async (p, k) => (p ? (await sessions[k].query<{ n: number }>(rangeCountSql(job.layer, p.range))).rows[0].n : 0)),
      );
      const inOrder = firsts.filter((p): p is Piece => !!p).sort((a, b) => (a.range?.from ?? 0) - (b.range?.from ?? 0));
      total = 0;
      for (const p of inOrder) {
        p.before = total;
        total += counts[firsts.indexOf(p)];
      }
    }
    await writeFile(job.path, doc.head(total), 'utf8');

    const report = (piece: Piece, n: number) => {
      piece.rows = n;
      job.onRows?.(taken.reduce((a, p) => a + p.rows, 0));
    };
    // The file's first row gives up the separator it carries for the row before it.
    const skip = doc.separator.length;
    let rows = 0; // in job.path so far
    let failed = false;
    const run = async (k: number) => {
      for (let p = firsts[k]; p && !failed; p = take(k)) {
        const piece = p;
        piece.rows = await copyQueryToFile(sessions[k], doc.sql(piece.range, piece.before), piece.file ?? job.path, {
          append: !piece.file,
          skipFirst: !piece.file && rows === 0 ? skip : 0,
          signal: job.signal,
          onRows: (n) => report(piece, n),
        });
        if (!piece.file) rows += piece.rows;
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
    // The ranges the other sessions wrote, in the file's order.
    for (const piece of [...back].reverse()) {
      await appendFile(piece.file!, rows === 0 && piece.rows > 0 ? skip : 0, job.path, job.signal);
      await rm(piece.file!, { force: true });
      rows += piece.rows;
    }
    if (doc.tail) await writeFile(job.path, doc.tail, { flag: 'a' });
    job.onRows?.(rows);
    return rows;
  } finally {
    dropSparePieces();
    await Promise.all(sessions.map(closeSession));
    await Promise.all(back.map((p) => rm(p.file!, { force: true })));
  }
}

/**
 * Appends `from` (from byte `start`) to `to` through one buffer: streams read into a new buffer each time, and in
 * the worker that much memory coming and going kept V8 collecting its whole heap.
 */
async function appendFile(from: string, start: number, to: string, signal?: AbortSignal): Promise<void> {
  const [src, dst] = await Promise.all([open(from, 'r'), open(to, 'a')]);
  const buf = takePiece();
  try {
    for (let pos = start; ;) {
      signal?.throwIfAborted();
      const { bytesRead } = await src.read(buf, 0, buf.length, pos);
      if (!bytesRead) return;
      await writeAll(dst, buf.subarray(0, bytesRead), null);
      pos += bytesRead;
    }
  } finally {
    givePiece(buf);
    await Promise.all([src.close(), dst.close()]);
  }
}

/** Writes one CSV or GeoJSON layer to job.path. */
export async function copyLayer(job: CopyLayerJob): Promise<void> {
  const csv = job.format === 'csv';
  await copyDocument(job, {
    settings: COPY_SESSION,
    head: () => (csv ? csvHeader(job.layer, job.escapeFormulas ?? true) : geojsonHead(job.layerName)),
    tail: csv ? '' : GEOJSON_TAIL,
    separator: csv ? '' : GEOJSON_SEPARATOR,
    counted: false,
    sql: (range) => (csv ? csvLinesSql(job.layer, job.target, range, job.escapeFormulas ?? true) : geojsonFeaturesSql(job.layer, range)),
  });
}

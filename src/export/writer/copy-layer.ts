/**
 * CSV and GeoJSON straight from PostgreSQL: the file is the output of COPY (SELECT ...) with each row formatted
 * in SQL (copy-format.ts), so no feature crosses into JavaScript or GDAL. Formatting numbers is most of the work
 * and runs in the backend, one core per backend: a large layer is split by OID into ranges written by parallel
 * sessions, the later range into a file of its own that is appended to the first.
 *
 * Measured on 1M points to CSV (2 cores): ogr2ogr 10.3 s, PostgreSQL's plain COPY 2.7 s; the formatted COPY
 * alone 5.5 s on one backend, about half that on two.
 */
import { availableParallelism } from 'node:os';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Client } from 'pg';
import type { ResolvedSrs } from './args';
import {
  antimeridianSql,
  CSV_SESSION,
  csvHeader,
  csvLinesSql,
  GEOJSON_SEPARATOR,
  GEOJSON_SESSION,
  GEOJSON_TAIL,
  geojsonFeaturesSql,
  geojsonHead,
  oidBoundsSql,
  OidRange,
} from './copy-format';
import { copyQueryToFile } from './copy-rows';
import { closeSession, openSession } from './pg-session';
import { geometryOutput } from './sql';
import type { ExportLayerSource } from './types';

export type CopyFormat = 'csv' | 'geojson';

/** Below this many rows one session is quicker than starting a second. */
const PARALLEL_MIN_ROWS = 50_000;
/** One backend per core, within reason (the database may well have more cores than this machine). */
const SESSIONS = Math.min(4, Math.max(1, availableParallelism()));

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
  /** Rows the layer holds (measured), to decide on parallel sessions. */
  rows: number;
  signal?: AbortSignal;
  onRows?: (rows: number) => void;
}

/**
 * Whether GDAL must write this layer instead: GeoJSON features crossing the antimeridian, which GDAL's RFC 7946
 * writer cuts in two (and points beyond it, which it refuses).
 */
export async function needsGdal(job: Pick<CopyLayerJob, 'format' | 'layer' | 'pg' | 'sessionName'>): Promise<boolean> {
  if (job.format !== 'geojson' || geometryOutput(job.layer, 'geojson') === 'none') return false;
  const client = await openSession(job.pg, job.sessionName);
  try {
    const { rows } = await client.query<{ crosses: boolean }>(antimeridianSql(job.layer));
    return rows[0].crosses;
  } finally {
    await closeSession(client);
  }
}

/** Splits [lo, hi] into n ranges of OIDs (the filtered rows' OIDs are close to evenly spread in practice). */
export function oidRanges(lo: number, hi: number, n: number): OidRange[] {
  const step = Math.ceil((hi - lo + 1) / n);
  const out: OidRange[] = [];
  for (let from = lo; from <= hi; from += step) out.push({ from, to: Math.min(hi, from + step - 1) });
  return out;
}

async function ranges(client: Client, job: CopyLayerJob): Promise<(OidRange | undefined)[]> {
  const sql = oidBoundsSql(job.layer);
  if (!sql || job.rows < PARALLEL_MIN_ROWS || SESSIONS < 2) return [undefined];
  const { rows } = await client.query<{ lo: number | null; hi: number | null }>(sql);
  const { lo, hi } = rows[0];
  return lo === null || hi === null ? [undefined] : oidRanges(lo, hi, SESSIONS);
}

/** Writes one layer to job.path. */
export async function copyLayer(job: CopyLayerJob): Promise<void> {
  const settings = job.format === 'csv' ? CSV_SESSION : GEOJSON_SESSION;
  const sql = (range?: OidRange) =>
    job.format === 'csv' ? csvLinesSql(job.layer, job.target, range) : geojsonFeaturesSql(job.layer, range);
  const sessions: Client[] = [];
  const parts: string[] = [];
  try {
    sessions.push(await openSession(job.pg, job.sessionName, settings));
    const split = await ranges(sessions[0], job);
    while (sessions.length < split.length) sessions.push(await openSession(job.pg, job.sessionName, settings));
    await writeFile(job.path, job.format === 'csv' ? csvHeader(job.layer) : geojsonHead(job.layerName), 'utf8');

    const done = split.map(() => 0);
    const report = (i: number, n: number) => {
      done[i] = n;
      job.onRows?.(done.reduce((a, b) => a + b, 0));
    };
    // The first range goes straight into the file; the others into files of their own, appended in order.
    const written = await Promise.all(
      split.map((range, i) => {
        const path = i === 0 ? job.path : `${job.path}.${i}`;
        if (i > 0) parts.push(path);
        const skipFirst = job.format === 'geojson' && i === 0 ? GEOJSON_SEPARATOR.length : 0;
        return copyQueryToFile(sessions[i], sql(range), path, {
          append: i === 0,
          skipFirst,
          signal: job.signal,
          onRows: (n) => report(i, n),
        });
      }),
    );
    let before = written[0];
    for (const [k, part] of parts.entries()) {
      // A GeoJSON feature drops its separator when nothing precedes it in the file.
      const start = job.format === 'geojson' && before === 0 && written[k + 1] > 0 ? GEOJSON_SEPARATOR.length : 0;
      await pipeline(createReadStream(part, { start }), createWriteStream(job.path, { flags: 'a' }), { signal: job.signal });
      await rm(part, { force: true });
      before += written[k + 1];
    }
    if (job.format === 'geojson') await writeFile(job.path, GEOJSON_TAIL, { flag: 'a' });
    job.onRows?.(before);
  } finally {
    await Promise.all(sessions.map(closeSession));
    await Promise.all(parts.map((p) => rm(p, { force: true })));
  }
}

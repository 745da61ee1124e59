/** The PostGIS side: connection settings, target SR resolution, the up-front measure, cancelling, probing. */
import * as gdal from 'gdal-async';
import { normaliseWkid } from '../../layers/layer-schema';
import { ResolvedSrs } from './srs';
import { ExportWriteError } from './errors';
import { withSession } from './pg-session';
import { buildEstimateSql, buildMeasureSql, buildReprojectionProbeSql, LayerMeasure } from './sql';
import { ExportJob, ExportLayerSource } from './types';

let configured = false;

/**
 * Process-wide GDAL settings (gdal.config is global), applied once and only where the environment has not set
 * them: a 10,000-row PG cursor page (default 500) is most of the speed of 50,000 at a fraction of the memory; the
 * SQLite settings speed up GeoPackage / SQLite writes and are safe for a temp file that is discarded on failure. The
 * SQLite cache is held to 64 MB, which keeps a GeoPackage export within the worker's memory budget (README.md).
 */
export function configureGdal(): void {
  if (configured) return;
  configured = true;
  const setDefault = (key: string, value: string) => {
    if (gdal.config.get(key) == null) gdal.config.set(key, value);
  };
  setDefault('OGR_PG_CURSOR_PAGE', '10000');
  setDefault('OGR_SQLITE_CACHE', '64');
  setDefault('OGR_SQLITE_SYNCHRONOUS', 'OFF');
}

/**
 * The caller's PG: string plus a session time zone of UTC (timestamptz is read, and shapefile dates cut, in
 * UTC whatever the server default) and an application_name that lets an abort find and end this export's
 * backend. A caller-supplied `options=` is left alone.
 */
export function exportConnection(pg: string, applicationName: string): string {
  const base = pg.trim();
  const tz = /\boptions\s*=/.test(base) ? '' : ` options='-c TimeZone=UTC'`;
  return `${base}${tz} application_name='${applicationName.replace(/[^A-Za-z0-9_-]/g, '')}'`;
}

export const openPg = (conn: string) => gdal.openAsync(conn, 'r', ['PostgreSQL']);

/** targetSR → what GDAL/PROJ read. WKT goes through fromWKT only, so it can never name a file. */
export async function resolveTarget(target: ExportJob['target']): Promise<ResolvedSrs | null> {
  if (!target) return null;
  if ('wkt' in target) {
    const wkt = typeof target.wkt === 'string' ? target.wkt.trim() : '';
    try {
      if (!/^[A-Za-z_]+\s*\[/.test(wkt)) throw new Error('not WKT');
      gdal.SpatialReference.fromWKT(wkt);
    } catch {
      throw new ExportWriteError('targetSR: the WKT is not a spatial reference GDAL can read.');
    }
    return { srs: wkt };
  }
  const wkid = normaliseWkid(target.srid);
  if (!Number.isInteger(wkid) || wkid <= 0) throw new ExportWriteError(`targetSR: ${target.srid} is not a valid wkid.`);
  for (const srs of [`EPSG:${wkid}`, `ESRI:${wkid}`]) {
    try {
      await gdal.SpatialReference.fromUserInputAsync(srs);
      return { srs, wkid };
    } catch {
      // not in this authority; try the next
    }
  }
  throw new ExportWriteError(`targetSR: wkid ${target.srid} is not a spatial reference this server knows.`);
}

/** Row counts (and what the format checks need, see buildMeasureSql) for every layer, on a connection closed before writing. */
export async function measureLayers(conn: string, job: ExportJob, exact = false): Promise<LayerMeasure[]> {
  const ds = await openPg(conn);
  try {
    const out: LayerMeasure[] = [];
    for (const layer of job.layers) {
      job.signal?.throwIfAborted();
      const rs = await ds.executeSQLAsync(buildMeasureSql(layer, job.format, exact));
      const first = await rs.features.firstAsync();
      // count(*) always returns a row; none means the query failed (GDAL logs the database error).
      if (!first) throw new Error(`Counting the features of layer '${layer.name}' failed; see the GDAL error above in the log.`);
      const row = first.fields.toObject();
      const n = (k: string) => Number(row[k] ?? 0) || 0;
      const bytes = row.geometry_bytes;
      out.push({
        rows: n('rows'),
        nullGeometries: n('null_geometries'),
        vertices: n('vertices'),
        parts: n('parts'),
        ...(bytes === undefined ? {} : { geometryBytes: n('geometry_bytes') }),
      });
    }
    return out;
  } finally {
    // Closing releases the SQL result sets now: left to the GC, releasing one blocks the event loop while
    // another operation holds the dataset (a known gdal-async issue).
    ds.close();
  }
}

/**
 * The planner's row estimates instead of counts, for the formats that need rows only to show progress and to choose
 * parallel sessions (CSV and GeoJSON by COPY; the final count is the COPY's own). Counting a large layer, and a GDAL
 * open, took a large part of the export's first moments; an EXPLAIN on a session of our own takes next to nothing.
 * A where clause the planner misjudges can make a large layer look small and be written by one session instead of
 * several (slower, not different); checking a low estimate by counting would scan the table first again.
 */
export async function estimateLayers(pg: string, sessionName: string, job: ExportJob): Promise<LayerMeasure[]> {
  return withSession(pg, sessionName, async (client) => {
    const out: LayerMeasure[] = [];
    for (const layer of job.layers) {
      job.signal?.throwIfAborted();
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(buildEstimateSql(layer));
      const estimate = Math.round(rows[0]['QUERY PLAN'][0].Plan['Plan Rows']);
      out.push({ rows: estimate, estimated: true, nullGeometries: 0, vertices: 0, parts: 0 });
    }
    return out;
  });
}

/** Ends this export's backends (matched by application_name) so a running translate fails at once. */
export async function terminateSessions(conn: string, applicationName: string): Promise<void> {
  let ds: gdal.Dataset | undefined;
  try {
    ds = await openPg(exportConnection(conn, `${applicationName}-cancel`));
    const rs = await ds.executeSQLAsync(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = '${applicationName}' AND pid <> pg_backend_pid()`,
    );
    await rs.features.firstAsync(); // the driver reads through a cursor: fetching is what runs the query
  } catch {
    // Best effort: without it the export stops after the current layer.
  } finally {
    ds?.close();
  }
}

/** Whether PostGIS fails to project some of the layer's features to the target (see classifyTranslateError). */
export async function reprojectionFails(conn: string, layer: ExportLayerSource, target: ResolvedSrs): Promise<boolean> {
  let ds: gdal.Dataset | undefined;
  try {
    ds = await openPg(conn);
  } catch {
    return false; // the database is gone: a transient failure, worth a retry
  }
  try {
    // The PG driver reads through a cursor: a failing query shows up as a missing row (count(*) always has one).
    const rs = await ds.executeSQLAsync(buildReprojectionProbeSql(layer, target));
    return (await rs.features.firstAsync()) == null;
  } catch (probe) {
    return /transform/i.test(probe instanceof Error ? probe.message : String(probe));
  } finally {
    ds.close();
  }
}

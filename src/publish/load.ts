/**
 * Step 3 of publishing: one layer of the uploaded file into its (empty) PostGIS table, with ONE
 * gdal.vectorTranslateAsync call — the library form of `ogr2ogr -append`, COPY-based, in a single transaction.
 *
 * Speed: the table's secondary indexes (the GiST index on shape) are dropped before the COPY and rebuilt after it
 * (a bulk GiST build is several times cheaper than a million incremental inserts); no per-feature progress
 * callback (GDAL would call it per feature: measured 2x slower) — progress comes from polling the OBJECTID
 * identity sequence, which COPY advances live, from a separate connection.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as gdal from 'gdal-async';
import { Client } from 'pg';
import { connectionOf } from '../core/database/gdal-pg';
import { OgrArgs } from '../core/gdal/ogr-args';
import { ident } from '../layers/layer-schema';
import { PublishAbortedError, PublishError } from './errors';
import { SourceLayer } from './inspect';
import { openCsvForLoad, openGeojson, openGeopackage, openShapefile, PublishFileType } from './source';

export interface LoadTarget {
  /**
   * The service database, as a postgres:// URL (DATABASE_URL) or as a GDAL "PG:host=... dbname=..." string
   * (gdalPgConnection); one of the two is required.
   */
  databaseUrl?: string;
  pg?: string;
  schema: string;
  table: string;
  /** Optional check: the SRID the table's geometry column must have. Coordinates are projected to the column's SRID. */
  srid?: number;
}

export interface LoadOptions {
  /** Called with 0..1, at most once per progressIntervalMs while loading, and with 1 at the end. */
  onProgress?: (fraction: number) => void;
  progressIntervalMs?: number;
  /**
   * Cancels the load: the COPY is cancelled on the server, nothing is committed, and PublishAbortedError is thrown.
   * An abort that arrives after the COPY committed is ignored (the layer is complete).
   */
  signal?: AbortSignal;
  /** Empty a non-empty table first (TRUNCATE, identity restarted). Without it a non-empty table is an error. */
  replace?: boolean;
  /** ANALYZE the table after loading. Default true. */
  analyze?: boolean;
  /**
   * PostgreSQL application_name prefix of the load's sessions (letters, digits, '_' and '-', at most 40), so that
   * whoever cancels the job can end them (see jobSessionName). Default: a random one.
   */
  sessionName?: string;
  /**
   * At most this many features are loaded, whatever the file's headers claimed: GDAL stops reading after one more
   * (-limit), and a layer that reaches it is emptied again and refused with a PublishError.
   */
  maxFeatures?: number;
}

export interface LoadResult {
  loaded: number;
  /** Wall time of the phases, ms. */
  timings: { copy: number; indexes: number; analyze: number };
}

const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const LOAD_PHASE = 0.9;

/** Messages of load failures caused by the data (not worth a retry). */
const DATA_ERROR =
  /invalid input|value too long|out of range|violates|does not match column|geometry type|invalid byte sequence|non-closed|too few points|not a valid|parse error/i;

/** "COPY statement failed. ERROR: X CONTEXT: COPY t, line 2, column shape: ..." -> "X (feature 2)". */
export function describeCopyError(msg: string): string {
  const line = /CONTEXT:.*?\bline (\d+)/.exec(msg)?.[1];
  const core = msg
    .replace(/^COPY statement failed\.\s*/i, '')
    .replace(/\s*CONTEXT:.*$/, '')
    .replace(/^ERROR:\s*/, '')
    .slice(0, 300);
  return line ? `${core} (feature ${line})` : core;
}

interface TargetInfo {
  qualified: string;
  pk: string;
  geometry: { column: string; srid: number } | null;
  /** Non-key, non-geometry columns in table order: OGR's field order for the table. */
  fields: string[];
  sequence: string;
}

/** Loads `src` (from inspectSource on the same file) into the table; returns the number of rows loaded. */
export async function loadLayer(
  filePath: string,
  type: PublishFileType,
  src: SourceLayer,
  target: LoadTarget,
  opts: LoadOptions = {},
): Promise<LoadResult> {
  if (!SAFE_NAME.test(target.schema) || !SAFE_NAME.test(target.table))
    throw new Error(`Unsupported target table name ${target.schema}.${target.table}.`);
  if (opts.signal?.aborted) throw new PublishAbortedError();
  const abs = path.resolve(filePath);
  const db = connectionOf(target);
  const session = (opts.sessionName ?? `arcgis-publish-${randomUUID().slice(0, 12)}`).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
  const client = new Client({ ...db.client, application_name: `${session}-control` });
  // A cancelled job's sessions are ended from outside (JobsRepository.endSessions): the next query reports it.
  client.on('error', () => undefined);
  await client.connect();
  const restore: string[] = [];
  let srcDs: gdal.Dataset | undefined;
  try {
    await client.query(`SET lock_timeout = '60s'`);
    const info = await describeTarget(client, target);
    if (target.srid !== undefined && info.geometry && info.geometry.srid !== target.srid) {
      throw new Error(`Target ${info.qualified} has SRID ${info.geometry.srid}, not ${target.srid}.`);
    }
    if (!!info.geometry !== !!src.geometry)
      throw new Error(
        `Target ${info.qualified} ${info.geometry ? 'has' : 'has no'} geometry column but the source layer ${src.geometry ? 'has geometry' : 'has none'}.`,
      );
    const mapped = new Set(src.fieldMap.map((f) => f.column));
    const unmapped = info.fields.filter((c) => !mapped.has(c));
    // COPY writes NULL, not the column default, into columns no source field feeds.
    if (unmapped.length) throw new Error(`Target ${info.qualified} has columns no source field maps to: ${unmapped.join(', ')}.`);

    await prepareEmptyTable(client, info, !!opts.replace);
    // Secondary, non-constraint indexes (the GiST index on shape): dropped now, rebuilt after the COPY.
    const idx = await client.query<{ name: string; def: string }>(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i
        WHERE i.indrelid = $1::regclass AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
      [info.qualified],
    );
    for (const r of idx.rows) {
      await client.query(`DROP INDEX ${r.name}`);
      restore.push(r.def);
    }

    srcDs = await openSource(abs, type, src);
    const args = translateArgs(srcDs, src, info, target, opts.maxFeatures);

    const appName = `${session}-copy-${randomUUID().slice(0, 8)}`;
    const dest = `${db.gdal} application_name='${appName}' options='-c TimeZone=UTC' tables=${target.schema}.${target.table}`;
    gdal.config.set('PG_USE_COPY', 'YES');

    const t0 = Date.now();
    let settled = false;
    let reported = -1;
    const report = (f: number) => {
      const v = Math.min(1, Math.max(0, f));
      if (v > reported) {
        reported = v;
        try {
          opts.onProgress?.(v);
        } catch {
          // a throwing listener must not break the load
        }
      }
    };
    report(0);
    let polling = false;
    const expected = src.featureCount;
    const timer =
      opts.onProgress && expected > 0
        ? setInterval(() => {
            if (polling || settled) return;
            polling = true;
            client
              .query<{ n: string }>(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM ${info.sequence}`)
              .then((r) => !settled && report(LOAD_PHASE * Math.min(0.99, Number(r.rows[0].n) / expected)))
              .catch(() => undefined)
              .finally(() => (polling = false));
          }, opts.progressIntervalMs ?? 1000)
        : undefined;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      // The backend may not exist yet (GDAL still connecting), so keep cancelling until the translate settles.
      const cancel = async () => {
        while (!settled) {
          await client
            .query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [appName])
            .catch(() => undefined);
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      void cancel();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted while the source was opening (or by a progress listener): cancel as soon as the COPY starts.
    if (opts.signal?.aborted) onAbort();
    try {
      const out = await gdal.vectorTranslateAsync(dest, srcDs, args);
      out.close();
    } catch (e) {
      if (aborted) throw new PublishAbortedError();
      const msg = String((e as Error).message ?? e)
        .replace(/\s+/g, ' ')
        .trim();
      if (DATA_ERROR.test(msg)) throw new PublishError(`Layer '${src.definition.name}' could not be loaded: ${describeCopyError(msg)}`);
      throw new Error(`Loading layer '${src.definition.name}' failed: ${msg}`);
    } finally {
      settled = true;
      if (timer) clearInterval(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
    // An abort that arrives after the COPY committed is ignored: the layer is complete.
    const copy = Date.now() - t0;
    report(LOAD_PHASE);

    const t1 = Date.now();
    await rebuildIndexes(client, restore, info);
    restore.length = 0;
    const t2 = Date.now();
    if (opts.analyze !== false) await client.query(`ANALYZE ${info.qualified}`);
    const t3 = Date.now();
    const loaded = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${info.qualified}`)).rows[0].n);
    if (opts.maxFeatures !== undefined && loaded > opts.maxFeatures) {
      await client.query(`TRUNCATE ${info.qualified} RESTART IDENTITY`);
      throw new PublishError(
        `Layer '${src.definition.name}' holds more than ${opts.maxFeatures.toLocaleString('en-US')} features, more than this publish may still load.`,
      );
    }
    report(1);
    return { loaded, timings: { copy, indexes: t2 - t1, analyze: t3 - t2 } };
  } finally {
    srcDs?.close();
    if (restore.length) {
      // Failed or aborted: the COPY rolled back; put the indexes back on the (empty) table.
      await client.query(`RESET lock_timeout`).catch(() => undefined);
      for (const def of restore) await client.query(def).catch(() => undefined);
    }
    await client.end().catch(() => undefined);
  }
}

async function describeTarget(client: Client, target: LoadTarget): Promise<TargetInfo> {
  const qualified = `${ident(target.schema)}.${ident(target.table)}`;
  const exists = await client.query(`SELECT to_regclass($1) AS r`, [qualified]);
  if (!exists.rows[0].r) throw new Error(`Target table ${qualified} does not exist.`);
  const cols = await client.query<{ name: string; type: string; pk: boolean }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS pk
       FROM pg_attribute a
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [qualified],
  );
  const pks = cols.rows.filter((c) => c.pk);
  if (pks.length !== 1 || !/^(integer|bigint)$/.test(pks[0].type))
    throw new Error(`Target ${qualified} needs a single integer primary key (the OBJECTID).`);
  const geoms = cols.rows.filter((c) => /^geometry\b/.test(c.type));
  if (geoms.length > 1) throw new Error(`Target ${qualified} has more than one geometry column.`);
  let geometry: TargetInfo['geometry'] = null;
  if (geoms.length) {
    const srid = await client.query<{ srid: number }>(`SELECT Find_SRID($1, $2, $3) AS srid`, [target.schema, target.table, geoms[0].name]);
    geometry = { column: geoms[0].name, srid: srid.rows[0].srid };
  }
  const seq = await client.query<{ s: string | null }>(`SELECT pg_get_serial_sequence($1, $2) AS s`, [qualified, pks[0].name]);
  if (!seq.rows[0].s) throw new Error(`Target ${qualified}: the OBJECTID column must fill itself (identity or serial).`);
  return {
    qualified,
    pk: pks[0].name,
    geometry,
    fields: cols.rows.filter((c) => !c.pk && !/^geometry\b/.test(c.type)).map((c) => c.name),
    sequence: seq.rows[0].s,
  };
}

/** The table must be empty (or emptied with replace); the OBJECTID sequence restarts at 1 either way. */
async function prepareEmptyTable(client: Client, info: TargetInfo, replace: boolean): Promise<void> {
  const any = await client.query(`SELECT EXISTS (SELECT 1 FROM ${info.qualified}) AS x`);
  if (any.rows[0].x) {
    if (!replace) throw new Error(`Target ${info.qualified} already holds features; pass replace to empty it first.`);
    await client.query(`TRUNCATE ${info.qualified} RESTART IDENTITY`);
  } else {
    await client.query(`SELECT setval($1, 1, false)`, [info.sequence]);
  }
}

async function rebuildIndexes(client: Client, defs: string[], info: TargetInfo): Promise<void> {
  await client.query(`SET maintenance_work_mem = '256MB'`);
  for (const def of defs) await client.query(def);
  if (info.geometry) {
    // A worker killed mid-load (the index dropped, never rebuilt) is repaired by the retry.
    const has = await client.query(
      `SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = $1::regclass AND a.attname = $2`,
      [info.qualified, info.geometry.column],
    );
    if (!has.rowCount) {
      const table = info.qualified.split('.').pop()!.replace(/"/g, '');
      await client.query(
        `CREATE INDEX ${ident(`${table}_${info.geometry.column}_gist`)} ON ${info.qualified} USING gist (${ident(info.geometry.column)})`,
      );
    }
  }
  await client.query(`RESET maintenance_work_mem`);
}

async function openSource(abs: string, type: PublishFileType, src: SourceLayer): Promise<gdal.Dataset> {
  try {
    switch (type) {
      case 'csv':
        if (!src.csv) throw new Error('missing csv columns');
        return openCsvForLoad(abs, src.csv);
      case 'geojson':
        return await openGeojson(abs);
      case 'geopackage':
        return await openGeopackage(abs);
      case 'shapefile':
        if (!src.member) throw new Error('missing shapefile member');
        return await openShapefile(abs, src.member);
    }
  } catch {
    // fall through
  }
  throw new PublishError(`The file of layer '${src.definition.name}' could not be opened again for loading.`);
}

/** OGR SQL also reads backslash escapes inside quoted names, so names holding one are refused rather than quoted. */
const sqlQuote = (name: string, why: string) => {
  if (/[\\"]/.test(name))
    throw new PublishError(`Layer '${name}' ${why} and its name holds '\\' or '"', which cannot be passed safely; rename the layer.`);
  return `"${name}"`;
};

/**
 * The ogr2ogr arguments of the load: the part that makes it correct, and the part that makes it fast. Every
 * user-supplied name goes through OgrArgs (see there for why); a layer name GDAL would read as an option
 * ('-overwrite') is selected through -sql instead of the positional slot.
 */
function translateArgs(ds: gdal.Dataset, src: SourceLayer, info: TargetInfo, target: LoadTarget, maxFeatures?: number): string[] {
  const layer = type0(ds, src);
  const targetIndex = new Map(info.fields.map((c, i) => [c, i]));
  const byName = new Map(src.fieldMap.map((f) => [f.source, f.column]));
  const sourceFields = layer.fields.getNames();
  for (const f of src.fieldMap) {
    if (!sourceFields.includes(f.source))
      throw new PublishError(`Field '${f.source}' of layer '${src.definition.name}' is no longer in the file.`);
  }
  // -fieldmap: for each source field (in source order) the index of its target field, -1 to leave it out.
  const fieldmap = sourceFields.map((s) => {
    const col = byName.get(s);
    return col === undefined ? -1 : (targetIndex.get(col) ?? -1);
  });

  const args = new OgrArgs()
    .flag('-append')
    .option('-nln', `${target.schema}.${target.table}`)
    // One transaction: a failed or cancelled load leaves the table empty. COPY streams, so size does not matter.
    .option('-gt', 'unlimited')
    // Target columns are 2D; Z and M are dropped.
    .option('-dim', 'XY');
  if (fieldmap.length) args.option('-fieldmap', fieldmap.join(','));
  if (src.geometry?.linearize) args.option('-nlt', 'CONVERT_TO_LINEAR');
  if (src.geometry?.promoteToMulti) args.option('-nlt', 'PROMOTE_TO_MULTI');
  // GDAL stops reading after this many features, whatever the file's headers claimed: the caller sees one too many.
  if (maxFeatures !== undefined) args.option('-limit', maxFeatures + 1);
  if (src.geometry?.where) {
    args
      .option('-dialect', 'OGRSQL')
      .option('-sql', `SELECT * FROM ${sqlQuote(layer.name, 'mixes geometry types')} WHERE ${src.geometry.where}`);
  } else if (OgrArgs.canBePositional(layer.name)) {
    args.layer(layer.name);
  } else {
    args.option('-dialect', 'OGRSQL').option('-sql', `SELECT * FROM ${sqlQuote(layer.name, "starts with '-'")}`);
  }
  if (info.geometry) {
    const to = info.geometry.srid;
    if (!src.sourceHasSrs) {
      if (src.sourceSrid !== null && src.sourceSrid !== to) args.option('-s_srs', `EPSG:${src.sourceSrid}`).option('-t_srs', `EPSG:${to}`);
    } else if (src.sourceSrid !== to) {
      args.option('-t_srs', `EPSG:${to}`);
    }
  }
  return args.toArray();
}

function type0(ds: gdal.Dataset, src: SourceLayer): gdal.Layer {
  // CSV and shapefile datasets have exactly one layer; GeoJSON/GeoPackage are looked up by name.
  const layer = src.csv || src.member ? ds.layers.get(0) : ds.layers.get(src.sourceName);
  if (!layer) throw new PublishError(`Layer '${src.sourceName}' is no longer in the file.`);
  return layer;
}

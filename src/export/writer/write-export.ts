/**
 * The executor: everything that touches GDAL, the database and the file system. The arguments it runs come
 * from the pure builders (args.ts, sql.ts, layout.ts); each layer is ONE gdal.vectorTranslateAsync, so
 * features never cross into JavaScript (except Feature Collection, which GDAL cannot write, see there).
 * CSV, GeoJSON and Excel's sheets are written by PostgreSQL itself (copy-layer.ts, xlsx-workbook.ts), unless the
 * job asks for GDAL.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as gdal from 'gdal-async';
import { buildTranslateArgs, packsGpkgIndex } from './gdal/args';
import { layerTargetSrs, ResolvedSrs } from './srs';
import { releaseFreeMemory } from '../../core/memory/release-memory';
import { addGpkgRtree, startRtreeEntries, stopRtreeEntries } from './gpkg/gpkg-rtree';
import { ExportWriteError } from './errors';
import { appendLayer, COLLECTION_HEAD, COLLECTION_TAIL, esriSpatialReference, JsonSink } from './gdal/feature-collection';
import { FORMATS } from './formats';
import { ExportPlan, planExport } from './layout';
import { boundsPass, checkLimits } from './limits';
import { mb, Progress, startTicker } from './progress';
import { checkWrittenShapefile, shapefileReadme, writeFieldMapping } from './shapefile/shapefile';
import { copyLayer, needsGdal } from './copy/copy-layer';
import { planShapefileParts, writeShapefileParts } from './shapefile/shapefile-parts';
import { translateLayer } from './gdal/translate';
import { writeWorkbook } from './xlsx/xlsx-workbook';
import {
  configureGdal,
  estimateLayers,
  exportConnection,
  measureLayers,
  openPg,
  reprojectionFails,
  resolveTarget,
  terminateSessions,
} from './source';
import { geometryOutput, LayerMeasure, xyColumns } from './sql';
import { EXPORT_FORMATS } from '../formats';
import { ExportJob, ExportLayerSource, ExportOutput } from './types';
import { DEFAULT_ZIP_LEVEL, zipDirectory } from './zip/zip';
import { ZipAhead } from './zip/zip-ahead';

/**
 * GDAL reports a feature it cannot reproject only as a generic failure ("Terminating translation prematurely",
 * or whatever the driver said last). Failures of a reprojected layer are probed in PostGIS, whose ST_Transform
 * errors on the same coordinates: then the data does not fit the target SR and a retry cannot help.
 */
async function classifyTranslateError(e: unknown, layer: ExportLayerSource, target: ResolvedSrs | null, conn: string): Promise<unknown> {
  const msg = e instanceof Error ? e.message : String(e);
  if (/2GB/i.test(msg))
    return new ExportWriteError(
      `Layer '${layer.name}': a shapefile component reached 2 GB. Use a where clause to export fewer features, or choose File Geodatabase or GeoPackage.`,
    );
  // GDAL relays PostGIS's error as "ERROR:  transform: ..."; a COPY's session reports it as "transform: ...".
  const transformFailure =
    /(ERROR:\s+|^)transform/i.test(msg) ||
    (target !== null && layer.includeGeometry && !!layer.geometryType && (await reprojectionFails(conn, layer, target)));
  if (transformFailure) {
    return new ExportWriteError(
      `Layer '${layer.name}': some features could not be projected to the requested spatial reference (they lie outside its area of use). Choose another targetSR or filter them out with a where clause.`,
    );
  }
  return e;
}

/** How the job's layers are written: GDAL, or the format's own engine (FORMATS[].engine). */
export function engineOf(job: Pick<ExportJob, 'format' | 'engine'>): 'gdal' | 'copy' {
  return job.engine === 'gdal' ? 'gdal' : (FORMATS[job.format].engine ?? 'gdal');
}

/** Measures the layers while the source opens (GDAL's PG open runs its catalog queries): ~15 ms off each export. */
async function measureAndOpen(conn: string, job: ExportJob, appName: string): Promise<[LayerMeasure[], gdal.Dataset | undefined]> {
  // The streaming engines open GDAL's source only for a layer they leave to it; CSV and GeoJSON need no count.
  if (engineOf(job) !== 'gdal') {
    const estimate = job.format === 'csv' || job.format === 'geojson';
    return [estimate ? await estimateLayers(job.pg, appName, job) : await measureLayers(conn, job), undefined];
  }
  const [measured, opened] = await Promise.allSettled([measureLayers(conn, job), openPg(conn)]);
  if (measured.status === 'fulfilled' && opened.status === 'fulfilled') return [measured.value, opened.value];
  if (opened.status === 'fulfilled') opened.value.close();
  throw measured.status === 'rejected' ? measured.reason : (opened as PromiseRejectedResult).reason;
}

function validateJob(job: ExportJob): void {
  if (!(EXPORT_FORMATS as readonly string[]).includes(job.format)) throw new ExportWriteError(`Unsupported export format '${job.format}'.`);
  if (!job.layers?.length) throw new ExportWriteError('Nothing to export: the request selects no layers.');
  if (!job.workDir) throw new Error('writeExport: workDir is required');
  // GDAL's CSV writer writes a formula as it is: only the reference runs (tests) may ask for that, and must say so.
  if (job.format === 'csv' && engineOf(job) === 'gdal' && job.escapeFormulas !== false)
    throw new Error("writeExport: GDAL's CSV writer cannot escape formulas; engine 'gdal' needs escapeFormulas: false");
  // Refuse bad x/y column names now rather than after earlier layers were written.
  for (const layer of job.layers) if (geometryOutput(layer, job.format) === 'xy') xyColumns(layer);
}

const count = (n: number) => n.toLocaleString('en-US');
/** "n of rows", or of about so many when rows is an estimate (which the rows written may pass). */
function written(n: number, m: Pick<LayerMeasure, 'rows' | 'estimated'>): string {
  if (!m.estimated) return `${count(Math.min(n, m.rows))} of ${count(m.rows)}`;
  return n <= m.rows ? `${count(n)} of about ${count(m.rows)}` : count(n);
}

/**
 * How far through its layer n rows are. Against an estimate the last tenth is kept for rows past it: from 0.9 of the
 * estimate on, the fraction creeps towards 1 (a low estimate would otherwise show the layer done at its first report).
 */
function layerFraction(n: number, m: Pick<LayerMeasure, 'rows' | 'estimated'>): number {
  const rows = Math.max(m.rows, 1);
  if (!m.estimated || n <= 0.9 * rows) return n / rows;
  return 0.9 + 0.1 * (1 - (0.9 * rows) / n);
}

interface Stage {
  appName: string;
  conn: string;
  stage: string;
  zipLevel: number;
  progress: Progress;
}

/** Excel: every layer a sheet of the one workbook, printed by PostgreSQL. */
async function writeSheets(
  job: ExportJob,
  plan: ExportPlan,
  measures: LayerMeasure[],
  target: ResolvedSrs | null,
  s: Stage,
): Promise<void> {
  const sheets = job.layers.map((layer, i) => ({
    layer,
    sheetName: plan.layers[i].layerName,
    target: layerTargetSrs(job.format, target, layer),
    rows: measures[i].rows,
  }));
  let current = 0;
  try {
    await writeWorkbook({
      pg: job.pg,
      sessionName: s.appName,
      path: join(s.stage, plan.layers[0].dataset),
      sheets,
      zipLevel: s.zipLevel,
      signal: job.signal,
      onRows: (i, n) => {
        if (i !== current) s.progress.layer(current, 1, `Sheet ${current + 1} of ${sheets.length} '${sheets[current].sheetName}' written`);
        current = i;
        const rows = measures[i].rows;
        s.progress.layer(
          i,
          n / Math.max(rows, 1),
          `Writing sheet ${i + 1} of ${sheets.length} '${sheets[i].sheetName}': ${written(n, measures[i])} rows`,
        );
      },
    });
  } catch (e) {
    job.signal?.throwIfAborted();
    throw await classifyTranslateError(e, job.layers[current], sheets[current].target, s.conn);
  }
  job.signal?.throwIfAborted();
  s.progress.layer(sheets.length - 1, 1, `Sheet ${sheets.length} of ${sheets.length} '${sheets[sheets.length - 1].sheetName}' written`);
}

/** Writes the export into job.workDir and returns the one file to hand back; on failure leaves nothing behind. */
export async function writeExport(job: ExportJob): Promise<ExportOutput> {
  validateJob(job);
  job.signal?.throwIfAborted();
  configureGdal();
  const { format, signal } = job;
  const plan = planExport(
    format,
    job.layers.map((l) => l.name),
    job.baseName,
  );
  const target = await resolveTarget(job.target);
  const appName = job.sessionName ? `${job.sessionName}-${randomUUID().slice(0, 8)}` : `export-${randomUUID()}`;
  const conn = exportConnection(job.pg, appName);
  const stage = await mkdtemp(join(job.workDir, '.export-'));
  const finalPath = join(job.workDir, plan.fileName);
  let src: gdal.Dataset | undefined;
  let sink: JsonSink | undefined;
  let ahead: ZipAhead | undefined;
  let delivered = false;
  const zipLevel = job.zipLevel ?? DEFAULT_ZIP_LEVEL;
  const onAbort = () => void terminateSessions(job.pg, appName);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const [measured, opened] = await measureAndOpen(conn, job, appName);
    src = opened;
    // A bound over a limit is not a refusal yet: the layers are then measured exactly.
    const names = plan.layers.map((l) => l.layerName);
    const measures = boundsPass(job, names, measured) ? measured : await measureLayers(conn, job, true);
    checkLimits(job, names, measures);
    const packaging = plan.result.kind === 'file' ? 0 : 0.05;
    const progress = new Progress(
      job,
      measures.map((m) => Math.max(m.rows, 1)),
      packaging,
    );
    for (const dir of new Set(plan.layers.map((l) => dirname(join(stage, l.dataset))))) await mkdir(dir, { recursive: true });
    // Every layout writes the download at this path (a single file, the collection, or the zip at the end).
    job.onOutputStarted?.(join(stage, plan.fileName), plan.fileName);

    if (plan.result.kind === 'zip' && zipLevel > 0) ahead = new ZipAhead(join(stage, plan.result.dir), join(stage, '.zip-ahead'), zipLevel);
    if (plan.result.kind === 'featurecollection') {
      sink = new JsonSink(join(stage, plan.result.path));
      await sink.write(COLLECTION_HEAD);
    }
    // A feature collection spends half of each layer's share on the GeoJSON → ArcGIS JSON conversion.
    const translateShare = sink ? 0.5 : 1;
    const engine = engineOf(job);
    const workbook = engine === 'copy' && format === 'excel';
    if (workbook) await writeSheets(job, plan, measures, target, { appName, conn, stage, zipLevel, progress });
    for (const [i, layer] of workbook ? [] : job.layers.entries()) {
      signal?.throwIfAborted();
      const t = plan.layers[i];
      const rows = measures[i].rows;
      const layerTarget = layerTargetSrs(format, target, layer);
      const report = (within: number, message: string) => progress.layer(i, within * translateShare, message);
      const about = measures[i].estimated ? 'about ' : '';
      report(0, `Exporting layer ${i + 1} of ${job.layers.length} '${layer.name}' (${about}${count(rows)} features)`);
      const copyFormat = format === 'csv' || format === 'geojson' ? format : undefined;
      const viaCopy =
        engine === 'copy' && copyFormat && !(await needsGdal({ format: copyFormat, layer, pg: job.pg, sessionName: appName }));
      const writing = (n: number) => report(layerFraction(n, measures[i]), `Writing '${t.layerName}': ${written(n, measures[i])} features`);
      // Large shapefile layers in parts. Planning only chooses the faster way: if it fails, the layer is written whole
      // (which reports its own errors).
      const parts =
        !viaCopy && format === 'shapefile' && job.engine !== 'gdal'
          ? await planShapefileParts({
              layer,
              layerName: t.layerName,
              target: layerTarget,
              rows,
              conn,
              pg: job.pg,
              sessionName: appName,
              dir: dirname(join(stage, t.dataset)),
              scratch: stage,
              split: job.shapefileSplit,
              source: (src ??= await openPg(conn)),
              signal,
              onRows: writing,
            }).catch((e: unknown) => {
              if (signal?.aborted) throw e;
              return null;
            })
          : null;
      let stopTicker = viaCopy || parts ? () => undefined : startTicker(stage, format, t, rows, report);
      try {
        if (viaCopy) {
          await copyLayer({
            format: copyFormat,
            layer,
            layerName: t.layerName,
            target: layerTarget,
            pg: job.pg,
            sessionName: appName,
            path: join(stage, t.dataset),
            rows,
            rangeRows: job.copyRangeRows,
            escapeFormulas: job.escapeFormulas ?? true,
            signal,
            onRows: writing,
          });
        } else if (parts && (await writeShapefileParts(parts))) {
          // Written in parts and joined.
        } else {
          if (parts) {
            report(0, `'${t.layerName}' was edited while it was written: writing it again`);
            stopTicker = startTicker(stage, format, t, rows, report);
          }
          src ??= await openPg(conn);
          const args = buildTranslateArgs({ layer, format, layerName: t.layerName, update: t.update, target: layerTarget, rows });
          const rtree = { pg: job.pg, sessionName: appName, scratch: stage, signal };
          // The index's entries are queried now, and sorted by PostgreSQL while GDAL writes the file.
          const entries = packsGpkgIndex({ layer, format, target: layerTarget }) ? startRtreeEntries(layer, rtree) : undefined;
          entries?.catch(() => undefined); // read (and its failure reported) after the translate
          try {
            await translateLayer(src, join(stage, t.dataset), args);
          } catch (e) {
            await entries?.then(stopRtreeEntries, () => undefined);
            throw e;
          }
          if (entries) {
            report(1, `Indexing '${t.layerName}'`);
            // The translate's SQLite page cache is freed in pieces glibc keeps; handed back now, the index is built
            // from the idle size instead of on top of it (1M points: peak 314 → 269 MB, with gpkg-rtree's small cache).
            releaseFreeMemory();
            await addGpkgRtree(join(stage, t.dataset), { table: t.layerName, source: layer }, rtree, await entries);
          }
        }
      } catch (e) {
        signal?.throwIfAborted();
        throw await classifyTranslateError(e, layer, layerTarget, conn);
      } finally {
        stopTicker();
      }
      // A translate can end "successfully" when its connection was cut by an abort; never keep that output.
      signal?.throwIfAborted();
      if (format === 'shapefile') {
        await checkWrittenShapefile(join(stage, 'out'), t.layerName);
        await writeFieldMapping(join(stage, 'out'), t.layerName, layer.fields);
      }
      if (sink) {
        const withGeometry = geometryOutput(layer, format) !== 'none';
        const sr = esriSpatialReference(layerTarget, layer);
        await appendLayer(sink, join(stage, t.dataset), layer, {
          first: i === 0,
          withGeometry,
          sr,
          signal,
          onFeatures: (n) =>
            progress.layer(
              i,
              translateShare + (1 - translateShare) * (n / Math.max(rows, 1)),
              `Converting '${layer.name}': ${n.toLocaleString('en-US')} features`,
            ),
        });
        await rm(join(stage, t.dataset), { force: true });
      }
      progress.layer(i, 1, `Layer ${i + 1} of ${job.layers.length} '${layer.name}' written`);
    }
    src?.close();
    src = undefined;

    signal?.throwIfAborted();
    const staged = join(stage, plan.fileName);
    if (plan.result.kind === 'zip') {
      progress.finishing(1 - packaging, `Packaging ${plan.fileName}`);
      if (format === 'shapefile') {
        await writeFile(
          join(stage, 'out', 'README.txt'),
          shapefileReadme(plan.layers.map((l, i) => ({ layerName: l.layerName, source: job.layers[i].name }))),
          'utf8',
        );
      }
      await zipDirectory(join(stage, plan.result.dir), staged, { signal, level: zipLevel, ahead: await ahead?.finish() });
    } else if (sink) {
      await sink.write(COLLECTION_TAIL);
      await sink.close();
      sink = undefined;
    }
    signal?.throwIfAborted();
    await rename(staged, finalPath);
    delivered = true;
    const size = (await stat(finalPath)).size;
    progress.finishing(1, `Export written: ${plan.fileName} (${mb(size)})`);
    return { path: finalPath, fileName: plan.fileName, contentType: plan.contentType, size };
  } catch (e) {
    if (delivered) await rm(finalPath, { force: true }).catch(() => undefined);
    // Whatever failed after an abort (a terminated connection, a destroyed stream) is reported as the abort.
    if (signal?.aborted) throw signal.reason;
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    sink?.destroy();
    src?.close();
    await ahead?.close();
    await rm(stage, { recursive: true, force: true });
  }
}

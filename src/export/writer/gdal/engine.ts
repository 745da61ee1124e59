/**
 * The GDAL engine: each layer is ONE gdal.vectorTranslateAsync of the SELECT that shapes it (args.ts, select.ts), so
 * features never cross into JavaScript. Large shapefile layers are written in parts and joined (shapefile/), and a
 * GeoPackage's spatial index is packed by the worker (gpkg/).
 */
import { dirname, join } from 'node:path';
import { releaseFreeMemory } from '../../../core/memory/release-memory';
import { ExportEngine, ExportRun, RunContext } from '../engine';
import { addGpkgRtree, startRtreeEntries, stopRtreeEntries } from '../gpkg/gpkg-rtree';
import { forEachLayer, LayerStep, writeLayer } from '../layers';
import { startTicker } from '../progress';
import { checkWrittenShapefile, writeDomainList, writeFieldMapping } from '../shapefile/shapefile';
import { planShapefileParts, writeShapefileParts } from '../shapefile/shapefile-parts';
import { measureLayers } from '../source';
import { LayerMeasure } from '../sql';
import { buildTranslateArgs, packsGpkgIndex } from './args';
import { translateLayer } from './translate';
import { addFieldDomains, DOMAIN_FORMATS } from './field-domains';

/** Measures the layers while GDAL's source opens (its PG open runs catalog queries of its own). */
async function measureAndOpen(run: RunContext): Promise<LayerMeasure[]> {
  const [measured, opened] = await Promise.allSettled([measureLayers(run.conn, run.job), run.source()]);
  if (measured.status === 'rejected') throw measured.reason;
  if (opened.status === 'rejected') throw opened.reason;
  return measured.value;
}

/** Large shapefile layers in parts. Planning only chooses the faster way: if it fails, the layer is written whole. */
async function shapefileParts(run: ExportRun, step: LayerStep) {
  const { job } = run;
  if (job.format !== 'shapefile' || job.engine === 'gdal') return null;
  return planShapefileParts({
    layer: step.layer,
    layerName: step.out.layerName,
    target: step.target,
    rows: step.measure.rows,
    conn: run.conn,
    pg: job.pg,
    sessionName: run.appName,
    dir: dirname(join(run.stage, step.out.dataset)),
    scratch: run.stage,
    split: job.shapefileSplit,
    source: await run.source(),
    signal: job.signal,
    onRows: step.writing,
  }).catch((e: unknown) => {
    if (job.signal?.aborted) throw e;
    return null;
  });
}

/** One translate of the layer, with a GeoPackage's index packed after it (packsGpkgIndex). */
async function translate(run: ExportRun, step: LayerStep): Promise<void> {
  const { job, stage } = run;
  const { layer, out, target } = step;
  const src = await run.source();
  const args = buildTranslateArgs({
    layer,
    format: job.format,
    layerName: out.layerName,
    update: out.update,
    target,
    rows: step.measure.rows,
  });
  const rtree = { pg: job.pg, sessionName: run.appName, scratch: stage, signal: job.signal };
  // The index's entries are queried now, and sorted by PostgreSQL while GDAL writes the file.
  const entries = packsGpkgIndex({ layer, format: job.format, target }) ? startRtreeEntries(layer, rtree) : undefined;
  entries?.catch(() => undefined); // read (and its failure reported) after the translate
  try {
    await translateLayer(src, join(stage, out.dataset), args);
  } catch (e) {
    await entries?.then(stopRtreeEntries, () => undefined);
    throw e;
  }
  if (entries) {
    step.report(1, `Indexing '${out.layerName}'`);
    // The translate's SQLite page cache is freed in pieces glibc keeps: handed back now, the index is built from the
    // idle size instead of on top of it.
    releaseFreeMemory();
    await addGpkgRtree(join(stage, out.dataset), { table: out.layerName, source: layer }, rtree, await entries);
  }
  if (DOMAIN_FORMATS.includes(job.format)) addFieldDomains(join(stage, out.dataset), out.layerName, layer.fields);
}

/** Writes one layer with GDAL (also the COPY engine's way for a layer it cannot write). */
export async function writeGdalLayer(run: ExportRun, step: LayerStep): Promise<void> {
  const { job, stage } = run;
  const ticker = () => startTicker(stage, job.format, step.out, step.measure.rows, step.report);
  const parts = await shapefileParts(run, step);
  await writeLayer(run, step.layer, step.target, async () => {
    let stopTicker = parts ? () => undefined : ticker();
    try {
      if (parts && (await writeShapefileParts(parts))) return;
      if (parts) {
        step.report(0, `'${step.out.layerName}' was edited while it was written: writing it again`);
        stopTicker = ticker();
      }
      await translate(run, step);
    } finally {
      stopTicker();
    }
  });
  if (job.format === 'shapefile') {
    await checkWrittenShapefile(join(stage, 'out'), step.out.layerName);
    await writeFieldMapping(join(stage, 'out'), step.out.layerName, step.layer.fields);
    await writeDomainList(join(stage, 'out'), step.out.layerName, step.layer.fields);
  }
}

export const gdalEngine: ExportEngine = {
  measure: measureAndOpen,
  write: (run) => forEachLayer(run, (step) => writeGdalLayer(run, step)),
};

/**
 * The orchestrator: one engine per job writes the layers (engine.ts), between the parts every export shares: the
 * limits checked before writing, the staging folder, progress, packaging and the one file handed back.
 */
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EXPORT_FORMATS } from '../formats';
import { writeAttachments } from './attachments';
import { writeRelationships } from './relationships';
import { copyEngine } from './copy/engine';
import { ExportEngine, RunContext } from './engine';
import { ExportWriteError } from './errors';
import { FORMATS } from './formats';
import { collectionEngine } from './gdal/collection-engine';
import { gdalEngine } from './gdal/engine';
import { boundsPass, checkLimits } from './limits';
import { packagingShare, startPackaging } from './package';
import { mb, Progress } from './progress';
import { openRun } from './run';
import { configureGdal, measureLayers } from './source';
import { LayerMeasure } from './sql';
import { geometryOutput, layerColumns, xyColumns } from './sql';
import { ExportJob, ExportOutput } from './types';
import { workbookEngine } from './xlsx/engine';

/** How the job's layers are written: GDAL, or the format's own engine (FORMATS[].engine). */
function engineOf(job: Pick<ExportJob, 'format' | 'engine'>): 'gdal' | 'copy' {
  return job.engine === 'gdal' ? 'gdal' : (FORMATS[job.format].engine ?? 'gdal');
}

function engineFor(job: ExportJob): ExportEngine {
  if (engineOf(job) === 'copy') return job.format === 'excel' ? workbookEngine : copyEngine;
  return job.format === 'featurecollection' ? collectionEngine : gdalEngine;
}

function validateJob(job: ExportJob): void {
  if (!(EXPORT_FORMATS as readonly string[]).includes(job.format)) throw new ExportWriteError(`Unsupported export format '${job.format}'.`);
  if (!job.layers?.length) throw new ExportWriteError('Nothing to export: the request selects no layers.');
  if (!job.workDir) throw new Error('writeExport: workDir is required');
  // GDAL's CSV writer writes a formula as it is: only the reference runs (tests) may ask for that, and must say so.
  if (job.format === 'csv' && engineOf(job) === 'gdal' && job.escapeFormulas !== false)
    throw new Error("writeExport: GDAL's CSV writer cannot escape formulas; engine 'gdal' needs escapeFormulas: false");
  // Refuse bad x/y column names now rather than after earlier layers were written.
  for (const layer of job.layers) {
    layerColumns(layer);
    if (geometryOutput(layer, job.format) === 'xy') xyColumns(layer);
  }
}

/** The engine's measures, checked against the limits; a bound over a limit is not a refusal yet: the layers are then measured exactly. */
async function measure(run: RunContext, engine: ExportEngine): Promise<LayerMeasure[]> {
  const measured = await engine.measure(run);
  const names = run.plan.layers.map((l) => l.layerName);
  const measures = boundsPass(run.job, names, measured) ? measured : await measureLayers(run.conn, run.job, true);
  checkLimits(run.job, names, measures);
  return measures;
}

/** Moves the staged download into job.workDir; a failure after the move takes it away again. */
async function deliver({ job, plan, stage }: RunContext, progress: Progress): Promise<ExportOutput> {
  const path = join(job.workDir, plan.fileName);
  await rename(join(stage, plan.fileName), path);
  try {
    const size = (await stat(path)).size;
    progress.finishing(1, `Export written: ${plan.fileName} (${mb(size)})`);
    return { path, fileName: plan.fileName, contentType: plan.contentType, size };
  } catch (e) {
    await rm(path, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Writes the export into job.workDir and returns the one file to hand back; on failure leaves nothing behind. */
export async function writeExport(job: ExportJob): Promise<ExportOutput> {
  validateJob(job);
  job.signal?.throwIfAborted();
  configureGdal();
  const engine = engineFor(job);
  const run = await openRun(job);
  try {
    const measures = await measure(run, engine);
    const weights = measures.map((m) => Math.max(m.rows, 1));
    const progress = new Progress(job, weights, packagingShare(run.plan));
    for (const dir of new Set(run.plan.layers.map((l) => dirname(join(run.stage, l.dataset))))) await mkdir(dir, { recursive: true });
    // Every layout writes the download at this path (a single file, the collection, or the zip at the end).
    job.onOutputStarted?.(join(run.stage, run.plan.fileName), run.plan.fileName);
    const finishPackaging = startPackaging(run);
    await engine.write({ ...run, measures, progress });
    run.closeSource();
    await writeRelationships(run);
    await writeAttachments(run, progress);
    job.signal?.throwIfAborted();
    await finishPackaging(progress);
    job.signal?.throwIfAborted();
    return await deliver(run, progress);
  } catch (e) {
    // Whatever failed after an abort (a terminated connection, a destroyed stream) is reported as the abort.
    if (job.signal?.aborted) throw job.signal.reason;
    throw e;
  } finally {
    await run.close();
  }
}

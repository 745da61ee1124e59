/** How the staged files become the one download: zipped (deflated while they are written), or as they are. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExportPlan } from './layout';
import { Progress } from './progress';
import { OpenRun } from './run';
import { shapefileReadme } from './shapefile/shapefile';
import { zipDirectory } from './zip/zip';
import { ZipAhead } from './zip/zip-ahead';

/** The share of the progress bar kept for packaging (zipping, or the collection's conversion tail). */
export const packagingShare = (plan: ExportPlan) => (plan.result.kind === 'file' ? 0 : 0.05);

/** Starts packaging before the layers are written (a zip's files are deflated as they grow); returns the step that ends it. */
export function startPackaging(run: OpenRun): (progress: Progress) => Promise<void> {
  const { job, plan, stage, zipLevel } = run;
  const result = plan.result;
  if (result.kind !== 'zip') return async () => undefined;
  const ahead = zipLevel > 0 ? new ZipAhead(join(stage, result.dir), join(stage, '.zip-ahead'), zipLevel) : undefined;
  if (ahead) run.defer(() => ahead.close());
  return async (progress) => {
    progress.finishing(1 - packagingShare(plan), `Packaging ${plan.fileName}`);
    if (job.format === 'shapefile') {
      await writeFile(
        join(stage, 'out', 'README.txt'),
        shapefileReadme(plan.layers.map((l, i) => ({ layerName: l.layerName, source: job.layers[i].name }))),
        'utf8',
      );
    }
    await zipDirectory(join(stage, result.dir), join(stage, plan.fileName), {
      signal: job.signal,
      level: zipLevel,
      ahead: await ahead?.finish(),
      // Attachments (photos, PDFs, Office files) are compressed already: deflating them again gains little, costs the
      // worker several times the copy's time, and zlib's per-chunk memory grew with their number.
      stored: (name) => name.startsWith('attachments/') && name !== 'attachments/index.csv',
    });
  };
}

/** Excel: every layer a sheet of the one workbook, printed by PostgreSQL (xlsx-workbook.ts). */
import { join } from 'node:path';
import { ExportEngine } from '../engine';
import { classifyWriteError, written } from '../layers';
import { measureLayers } from '../source';
import { layerTargetSrs } from '../srs';
import { writeWorkbook } from './xlsx-workbook';

export const workbookEngine: ExportEngine = {
  measure: (run) => measureLayers(run.conn, run.job),
  async write(run) {
    const { job, plan, measures, progress } = run;
    const sheets = job.layers.map((layer, i) => ({
      layer,
      sheetName: plan.layers[i].layerName,
      target: layerTargetSrs(job.format, run.target, layer),
      rows: measures[i].rows,
    }));
    const done = (i: number) => progress.layer(i, 1, `Sheet ${i + 1} of ${sheets.length} '${sheets[i].sheetName}' written`);
    let current = 0;
    try {
      await writeWorkbook({
        pg: job.pg,
        sessionName: run.appName,
        path: join(run.stage, plan.layers[0].dataset),
        sheets,
        zipLevel: run.zipLevel,
        signal: job.signal,
        onRows: (i, n) => {
          if (i !== current) done(current);
          current = i;
          const rows = measures[i].rows;
          progress.layer(
            i,
            n / Math.max(rows, 1),
            `Writing sheet ${i + 1} of ${sheets.length} '${sheets[i].sheetName}': ${written(n, measures[i])} rows`,
          );
        },
      });
    } catch (e) {
      job.signal?.throwIfAborted();
      throw await classifyWriteError(e, job.layers[current], sheets[current].target, run.conn);
    }
    job.signal?.throwIfAborted();
    done(sheets.length - 1);
  },
};

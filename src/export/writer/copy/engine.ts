/**
 * The COPY engine for CSV and GeoJSON: each layer's file is the output of PostgreSQL's COPY (copy-layer.ts), unless
 * GDAL must write it (needsGdal).
 */
import { join } from 'node:path';
import { ExportEngine } from '../engine';
import { writeGdalLayer } from '../gdal/engine';
import { forEachLayer, writeLayer } from '../layers';
import { estimateLayers } from '../source';
import { copyLayer, needsGdal } from './copy-layer';

export const copyEngine: ExportEngine = {
  // Rows are needed only for progress and to choose parallel sessions: the planner's estimate does (no count first).
  measure: (run) => estimateLayers(run.job.pg, run.appName, run.job),
  write: (run) =>
    forEachLayer(run, async (step) => {
      const { job } = run;
      const format = job.format === 'csv' ? 'csv' : 'geojson';
      const { layer, target } = step;
      if (await needsGdal({ format, layer, pg: job.pg, sessionName: run.appName })) return writeGdalLayer(run, step);
      await writeLayer(run, layer, target, () =>
        copyLayer({
          format,
          layer,
          layerName: step.out.layerName,
          target,
          pg: job.pg,
          sessionName: run.appName,
          path: join(run.stage, step.out.dataset),
          rows: step.measure.rows,
          rangeRows: job.copyRangeRows,
          escapeFormulas: job.escapeFormulas ?? true,
          signal: job.signal,
          onRows: step.writing,
        }),
      );
    }),
};

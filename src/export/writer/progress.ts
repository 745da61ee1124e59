/**
 * Progress without a GDAL progress callback: that callback fires per feature and doubled the time of a shapefile
 * export (README.md). Instead: row counts measured up front weight the layers, and a ticker polls the file being
 * written.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LayerTarget } from './layout';
import { dbfRecordsWritten } from './shapefile/shapefile';
import { ExportJob, ExportProgress } from './types';

/** How often the ticker looks at the file being written. */
export const TICK_MS = 1000;

export class Progress {
  private readonly total: number;
  private readonly before: number[];

  constructor(
    private readonly job: ExportJob,
    private readonly weights: number[],
    /** Share of the bar kept for packaging (zip / conversion tail). */
    private readonly tail: number,
  ) {
    this.total = weights.reduce((a, b) => a + b, 0);
    this.before = weights.map((_, i) => weights.slice(0, i).reduce((a, b) => a + b, 0));
  }

  layer(index: number, within: number, message: string): void {
    const fraction = Math.min(Math.max(within, 0), 1);
    const overall = ((this.before[index] + this.weights[index] * fraction) / this.total) * (1 - this.tail);
    this.emit({ layerIndex: index, layerCount: this.weights.length, fraction, overall, message });
  }

  /** After the last layer: packaging (overall 1 - tail) and done (overall 1). */
  finishing(overall: number, message: string): void {
    this.emit({ layerIndex: this.weights.length - 1, layerCount: this.weights.length, fraction: 1, overall, message });
  }

  private emit(p: ExportProgress): void {
    try {
      this.job.onProgress?.(p);
    } catch {
      // A failing progress listener must not fail the export.
    }
  }
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Shapefile progress is exact (records in the .dbf so far); other formats report bytes written. */
export function startTicker(
  stage: string,
  format: ExportJob['format'],
  target: LayerTarget,
  rows: number,
  report: (within: number, message: string) => void,
): () => void {
  let busy = false;
  let stopped = false;
  const path = join(stage, target.dataset);
  const timer = setInterval(async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      if (format === 'shapefile') {
        const n = await dbfRecordsWritten(path.replace(/\.shp$/, '.dbf'));
        if (n !== null && rows > 0 && !stopped)
          report(
            n / rows,
            `Writing '${target.layerName}': ${Math.min(n, rows).toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} features`,
          );
      } else {
        const s = await stat(path).catch(() => null);
        if (s?.isFile() && !stopped) report(0, `Writing '${target.layerName}': ${mb(s.size)} written`);
      }
    } catch {
      // Progress is best effort; a rejection from an interval callback would go unhandled and end the worker.
    } finally {
      busy = false;
    }
  }, TICK_MS);
  timer.unref();
  return () => {
    stopped = true; // a tick in flight must not report after the layer's final message
    clearInterval(timer);
  };
}

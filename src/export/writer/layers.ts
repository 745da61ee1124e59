/** The per-layer steps every engine shares: progress messages, failures classified, aborted writes never kept. */
import { ExportRun } from './engine';
import { ExportWriteError } from './errors';
import { LayerTarget } from './layout';
import { reprojectionFails } from './source';
import { LayerMeasure } from './sql';
import { layerTargetSrs, ResolvedSrs } from './srs';
import { ExportLayerSource } from './types';

export interface LayerStep {
  index: number;
  layer: ExportLayerSource;
  /** Where and under which name the layer is written. */
  out: LayerTarget;
  measure: LayerMeasure;
  /** From layerTargetSrs(). */
  target: ResolvedSrs | null;
  /** Progress within the layer's share of the bar. */
  report(within: number, message: string): void;
  /** Progress as rows written. */
  writing(rows: number): void;
}

const count = (n: number) => n.toLocaleString('en-US');

/** "n of rows", or of about so many when rows is an estimate (which the rows written may pass). */
export function written(n: number, m: Pick<LayerMeasure, 'rows' | 'estimated'>): string {
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

/** Runs `write` for each layer in turn; `share` is the part of each layer's progress that writing it takes. */
export async function forEachLayer(run: ExportRun, write: (step: LayerStep) => Promise<void>, share = 1): Promise<void> {
  const { job, plan, measures, progress } = run;
  for (const [index, layer] of job.layers.entries()) {
    job.signal?.throwIfAborted();
    const out = plan.layers[index];
    const measure = measures[index];
    const report = (within: number, message: string) => progress.layer(index, within * share, message);
    const about = measure.estimated ? 'about ' : '';
    report(0, `Exporting layer ${index + 1} of ${job.layers.length} '${layer.name}' (${about}${count(measure.rows)} features)`);
    const writing = (n: number) => report(layerFraction(n, measure), `Writing '${out.layerName}': ${written(n, measure)} features`);
    const target = layerTargetSrs(job.format, run.target, layer);
    await write({ index, layer, out, measure, target, report, writing });
    progress.layer(index, 1, `Layer ${index + 1} of ${job.layers.length} '${layer.name}' written`);
  }
}

/** Runs one layer's write: a failure is classified (classifyWriteError), and a write that ends after an abort is never kept. */
export async function writeLayer(
  run: ExportRun,
  layer: ExportLayerSource,
  target: ResolvedSrs | null,
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (e) {
    run.job.signal?.throwIfAborted();
    throw await classifyWriteError(e, layer, target, run.conn);
  }
  // A translate can end "successfully" when its connection was cut by an abort; never keep that output.
  run.job.signal?.throwIfAborted();
}

/**
 * GDAL reports a feature it cannot reproject only as a generic failure ("Terminating translation prematurely",
 * or whatever the driver said last). Failures of a reprojected layer are probed in PostGIS, whose ST_Transform
 * errors on the same coordinates: then the data does not fit the target SR and a retry cannot help.
 */
export async function classifyWriteError(e: unknown, layer: ExportLayerSource, target: ResolvedSrs | null, conn: string): Promise<unknown> {
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

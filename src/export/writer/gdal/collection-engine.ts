/** Feature Collection, which GDAL has no driver for: GDAL writes each layer as GeoJSON, streamed into the collection. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ExportEngine } from '../engine';
import { forEachLayer } from '../layers';
import { geometryOutput } from '../sql';
import { gdalEngine, writeGdalLayer } from './engine';
import { appendLayer, COLLECTION_HEAD, COLLECTION_TAIL, esriSpatialReference, JsonSink } from './feature-collection';

/** The share of each layer's progress that GDAL's GeoJSON takes; the conversion takes the rest. */
const TRANSLATE_SHARE = 0.5;

export const collectionEngine: ExportEngine = {
  measure: gdalEngine.measure,
  async write(run) {
    const { job, plan, stage } = run;
    if (plan.result.kind !== 'featurecollection') throw new Error(`Feature Collection: the plan's result is a ${plan.result.kind}`);
    const sink = new JsonSink(join(stage, plan.result.path));
    let closed = false;
    try {
      await sink.write(COLLECTION_HEAD);
      await forEachLayer(
        run,
        async (step) => {
          await writeGdalLayer(run, step);
          const { index, layer } = step;
          const geojson = join(stage, step.out.dataset);
          await appendLayer(sink, geojson, layer, {
            first: index === 0,
            withGeometry: geometryOutput(layer, job.format) !== 'none',
            sr: esriSpatialReference(step.target, layer),
            signal: job.signal,
            onFeatures: (n) =>
              run.progress.layer(
                index,
                TRANSLATE_SHARE + (1 - TRANSLATE_SHARE) * (n / Math.max(step.measure.rows, 1)),
                `Converting '${layer.name}': ${n.toLocaleString('en-US')} features`,
              ),
          });
          await rm(geojson, { force: true });
        },
        TRANSLATE_SHARE,
      );
      await sink.write(COLLECTION_TAIL);
      await sink.close();
      closed = true;
    } finally {
      if (!closed) sink.destroy();
    }
  },
};

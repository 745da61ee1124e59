import { exportContentType } from '../formats';
import { FORMATS } from './formats';
import { safeBaseName, uniqueLayerNames } from './names';
import { ExportFormat } from './types';

export interface LayerTarget {
  /** -nln: sanitised and unique within the export. */
  layerName: string;
  /** The dataset GDAL writes, relative to the staging dir. */
  dataset: string;
  /** Adds a layer to the container an earlier layer created. */
  update: boolean;
}

/** How the staged files become the one download. */
export type PlanResult = { kind: 'file'; path: string } | { kind: 'zip'; dir: string } | { kind: 'featurecollection'; path: string };

export interface ExportPlan {
  fileName: string;
  contentType: string;
  layers: LayerTarget[];
  result: PlanResult;
}

/**
 * Where every layer is written and what is handed back (pure). Zip entries are the files under result.dir,
 * named relative to it: 'Cities.shp', 'Parcels.csv', 'Export.gdb/a00000001.gdbtable'.
 */
export function planExport(format: ExportFormat, layerNames: string[], baseName: string, zipAttachments = false): ExportPlan {
  const spec = FORMATS[format];
  const base = safeBaseName(baseName);
  const names = uniqueLayerNames(layerNames, spec.maxLayerName);
  // The served type comes from the item type's table whatever is stored; the stored one says the same.
  const mime = (fileName: string) => exportContentType(format, fileName);
  const zip = (layers: LayerTarget[]): ExportPlan => ({
    fileName: `${base}.zip`,
    contentType: mime(`${base}.zip`),
    layers,
    result: { kind: 'zip', dir: 'out' },
  });
  switch (spec.layout) {
    case 'container': {
      // FileGDB is a directory, so it travels zipped; GeoPackage, SQLite and an Excel workbook are single files.
      // With attachments as files beside it, the workbook travels zipped too.
      const zipped = format === 'filegdb' || zipAttachments;
      const dataset = zipped ? `out/${base}.${spec.ext}` : `${base}.${spec.ext}`;
      const layers = names.map((layerName, i) => ({ layerName, dataset, update: i > 0 }));
      return zipped ? zip(layers) : { fileName: dataset, contentType: mime(dataset), layers, result: { kind: 'file', path: dataset } };
    }
    case 'shapefile':
      return zip(names.map((layerName) => ({ layerName, dataset: `out/${layerName}.shp`, update: false })));
    case 'per-layer': {
      if (names.length === 1 && !zipAttachments) {
        const path = `${base}.${spec.ext}`;
        return {
          fileName: path,
          contentType: mime(path),
          layers: [{ layerName: names[0], dataset: path, update: false }],
          result: { kind: 'file', path },
        };
      }
      return zip(names.map((layerName) => ({ layerName, dataset: `out/${layerName}.${spec.ext}`, update: false })));
    }
    case 'featurecollection': {
      const path = `${base}.json`;
      const layers = names.map((layerName) => ({ layerName, dataset: `tmp/${layerName}.geojson`, update: false }));
      return { fileName: path, contentType: mime(path), layers, result: { kind: 'featurecollection', path } };
    }
  }
}

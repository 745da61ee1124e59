import { OgrArgs } from '../../../core/gdal/ogr-args';
import { FORMATS, GDAL_GEOMETRY_TYPE } from '../formats';
import { geometryOutput } from '../sql';
import { ResolvedSrs } from '../srs';
import { buildSelectSql } from './select';
import { ExportFormat, ExportLayerSource } from '../types';

export interface TranslateStep {
  layer: ExportLayerSource;
  format: ExportFormat;
  /** -nln: the output layer (file, feature class, sheet) name, already sanitised. */
  layerName: string;
  /** true when adding a layer to a container an earlier step created. */
  update: boolean;
  /** From layerTargetSrs(). */
  target: ResolvedSrs | null;
  /** Rows the layer will write (measured first); FlatGeobuf decides on its spatial index with it. */
  rows?: number;
}

/**
 * FlatGeobuf's spatial index is sorted in Dataset.close(), which gdal-async runs synchronously, blocking the event
 * loop for as long. Larger layers are streamed without it. Empty layers always get it: without the index GDAL 3.6
 * writes a 0-byte file for them.
 */
export const FGB_INDEX_MAX_ROWS = 100_000;

/**
 * Whether a GeoPackage layer is written without GDAL's spatial index, which gpkg-rtree.ts then adds far faster: only
 * for geometry that is not reprojected (the index is built from PostGIS's coordinates) and fids that are the OID's.
 */
export function packsGpkgIndex(step: Pick<TranslateStep, 'layer' | 'format' | 'target'>): boolean {
  return (
    step.format === 'geopackage' &&
    step.target === null &&
    geometryOutput(step.layer, step.format) === 'gdal' &&
    step.layer.fields.some((f) => f.type === 'esriFieldTypeOID')
  );
}

/** The ogr2ogr argv for one layer (pure; the executor passes it to gdal.vectorTranslateAsync). Built with OgrArgs, so no name or SQL can become an option. */
export function buildTranslateArgs(step: TranslateStep): string[] {
  const { layer, format } = step;
  const spec = FORMATS[format];
  const geom = geometryOutput(layer, format);
  const gdalGeometry = geom === 'gdal' || geom === 'wkt';
  const args = new OgrArgs();
  if (step.update) args.flag('-update');
  else {
    args.option('-f', spec.driver);
    for (const o of spec.dsco) args.option('-dsco', o);
  }
  args.option('-sql', buildSelectSql(layer, format, step.target)).option('-nln', step.layerName);
  // Declared, not guessed from the first row: one geometry type per layer (and per shapefile).
  args.option('-nlt', gdalGeometry ? GDAL_GEOMETRY_TYPE[layer.geometryType!] : 'NONE');
  if (gdalGeometry && step.target) args.option('-t_srs', step.target.srs);
  const lco = [...spec.lco];
  const oid = layer.fields.find((f) => f.type === 'esriFieldTypeOID');
  if (spec.fidLco && oid) lco.push(`${spec.fidLco}=${oid.name}`);
  if (geom === 'wkt') lco.push('GEOMETRY=AS_WKT');
  if (packsGpkgIndex(step)) lco.push('SPATIAL_INDEX=NO');
  if (format === 'flatgeobuf') lco.push(`SPATIAL_INDEX=${(step.rows ?? Infinity) <= FGB_INDEX_MAX_ROWS ? 'YES' : 'NO'}`);
  for (const o of lco) args.option('-lco', o);
  return args.toArray();
}

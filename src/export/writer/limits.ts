import { LayerField } from '../../layers/layer-schema';
import { ExportWriteError } from './errors';
import { FORMATS } from './formats';
import { geometryOutput, LayerMeasure } from './sql';
import { ExportJob, ExportLayerSource } from './types';

/** Rows per XLSX sheet, header row included. */
export const EXCEL_MAX_ROWS = 1_048_576;

/** Checked before writing: the XLSX driver would otherwise write rows Excel cannot open (GeoServer silently truncates). */
export function checkExcelRows(layerName: string, rows: number): void {
  if (rows + 1 > EXCEL_MAX_ROWS) {
    throw new ExportWriteError(
      `Layer '${layerName}' has ${rows.toLocaleString('en-US')} rows; an Excel sheet holds at most ${(EXCEL_MAX_ROWS - 1).toLocaleString('en-US')} plus the header. ` +
        'Use a where clause to export fewer rows, or choose CSV, File Geodatabase or GeoPackage.',
    );
  }
}

/**
 * Largest .shp or .dbf we write (as GeoServer). Past 2 GB other software misreads the file silently (ArcGIS Pro
 * read 269,861 of 300,000 rows of a .shp slightly over 2 GB), so the export fails instead.
 */
export const SHAPEFILE_MAX_BYTES = 2_147_483_647;

/** The DBF column width GDAL 3.6 gives each field type (measured: int4 9, int2 5, int8 18, float 24, date 8, uuid 80). */
export function dbfFieldWidth(f: LayerField): number {
  switch (f.type) {
    case 'esriFieldTypeOID':
    case 'esriFieldTypeInteger':
      return 9;
    case 'esriFieldTypeSmallInteger':
      return 5;
    case 'esriFieldTypeBigInteger':
      return 18;
    case 'esriFieldTypeSingle':
    case 'esriFieldTypeDouble':
      return 24;
    case 'esriFieldTypeDate':
      return 8;
    case 'esriFieldTypeString':
      return Math.min(f.length ?? 254, 254);
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return 80;
  }
}

export interface ShapefileSizes {
  shp: number;
  dbf: number;
}

/** Sizes of the .shp and .dbf for the measured rows (record layouts from the ESRI shapefile spec and dBase III). */
export function estimateShapefile(layer: ExportLayerSource, m: LayerMeasure, withGeometry: boolean): ShapefileSizes {
  const record = 1 + layer.fields.reduce((sum, f) => sum + dbfFieldWidth(f), 0);
  const dbf = 32 + 32 * layer.fields.length + 1 + m.rows * record + 1;
  if (!withGeometry) return { shp: 0, dbf };
  let body: number;
  switch (layer.geometryType) {
    case 'esriGeometryPoint':
      body = m.rows * 28; // 8 header + type + x + y
      break;
    case 'esriGeometryMultipoint':
      body = m.rows * 48 + (m.geometryBytes ?? m.vertices * 16); // 8 header + type + bbox + count, then the points
      break;
    default:
      // 8 header + type + bbox + counts, part index, points
      body = m.rows * 52 + (m.geometryBytes ?? m.parts * 4 + m.vertices * 16);
  }
  return { shp: 100 + body, dbf };
}

/** dBase as ArcGIS reads it: at most 255 fields (GDAL writes more, with a warning only). */
export const SHAPEFILE_MAX_FIELDS = 255;

export function checkShapefileFields(layerName: string, fieldCount: number): void {
  if (fieldCount > SHAPEFILE_MAX_FIELDS) {
    throw new ExportWriteError(
      `Layer '${layerName}' has ${fieldCount} fields; a shapefile holds at most ${SHAPEFILE_MAX_FIELDS}. Choose File Geodatabase, GeoPackage or CSV.`,
    );
  }
}

const gb = (n: number) => `${(n / 2 ** 30).toFixed(2)} GB`;

export function checkShapefileSizes(layerName: string, sizes: ShapefileSizes, when: 'estimated' | 'written'): void {
  for (const [ext, bytes] of [
    ['.shp', sizes.shp],
    ['.dbf', sizes.dbf],
  ] as const) {
    if (bytes > SHAPEFILE_MAX_BYTES) {
      throw new ExportWriteError(
        `Layer '${layerName}': its shapefile ${ext} ${when === 'estimated' ? 'would be about' : 'reached'} ${gb(bytes)}, over the 2 GB a shapefile component may hold. ` +
          'Use a where clause to export fewer features, or choose File Geodatabase or GeoPackage.',
      );
    }
  }
}

/** FlatGeobuf (GDAL 3.6) drops features without geometry without a word; refuse rather than lose rows. */
export function checkGeometryPresent(layerName: string, format: string, m: LayerMeasure, hasGeometry: boolean): void {
  if (!hasGeometry) {
    throw new ExportWriteError(
      `Layer '${layerName}': ${format} needs geometry; export it with includeGeometry=true or choose another format.`,
    );
  }
  if (m.nullGeometries > 0) {
    throw new ExportWriteError(
      `Layer '${layerName}': ${m.nullGeometries} of ${m.rows} features have no geometry, which ${format} cannot store. ` +
        'Choose GeoPackage or File Geodatabase, or filter those features out with a where clause.',
    );
  }
}

/** Refuses, before anything is written, what the format cannot hold; `names` are the layers' names in the output. */
export function checkLimits(job: Pick<ExportJob, 'format' | 'layers'>, names: string[], measures: LayerMeasure[]): void {
  job.layers.forEach((layer, i) => {
    const m = measures[i];
    const withGeometry = geometryOutput(layer, job.format) !== 'none';
    if (job.format === 'excel') checkExcelRows(names[i], m.rows);
    if (job.format === 'shapefile') {
      checkShapefileFields(names[i], layer.fields.length);
      checkShapefileSizes(names[i], estimateShapefile(layer, m, withGeometry), 'estimated');
    }
    if (FORMATS[job.format].needsGeometry) checkGeometryPresent(names[i], 'FlatGeobuf', m, withGeometry);
  });
}

/**
 * Whether layers measured with a bound (LayerMeasure.geometryBytes) pass checkLimits on it (true when none was
 * bounded: checkLimits then has the last word). The bound is never below the exact figure, so a layer that passes on
 * it passes; one that does not is measured exactly before it is refused.
 */
export function boundsPass(job: Pick<ExportJob, 'format' | 'layers'>, names: string[], measures: LayerMeasure[]): boolean {
  if (!measures.some((m) => m.geometryBytes !== undefined)) return true;
  try {
    checkLimits(job, names, measures);
    return true;
  } catch {
    return false;
  }
}

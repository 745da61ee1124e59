import { Errors } from '../core/errors/arcgis-error';

export type ExportFormatKey =
  'shapefile' | 'csv' | 'filegdb' | 'geojson' | 'kml' | 'excel' | 'featurecollection' | 'geopackage' | 'flatgeobuf' | 'sqlite';

export interface ExportFormatInfo {
  key: ExportFormatKey;
  /** The exportFormat value echoed in the reply. */
  name: string;
  /** Type of the result item, as ArcGIS names it (the `exportFormat` value is matched case-insensitively). */
  itemType: string;
}

const FORMATS: Record<string, ExportFormatInfo> = {
  shapefile: { key: 'shapefile', name: 'Shapefile', itemType: 'Shapefile' },
  csv: { key: 'csv', name: 'CSV', itemType: 'CSV' },
  'file geodatabase': { key: 'filegdb', name: 'File Geodatabase', itemType: 'File Geodatabase' },
  geojson: { key: 'geojson', name: 'GeoJson', itemType: 'GeoJson' },
  kml: { key: 'kml', name: 'KML', itemType: 'KML' },
  excel: { key: 'excel', name: 'Excel', itemType: 'Microsoft Excel' },
  'feature collection': { key: 'featurecollection', name: 'Feature Collection', itemType: 'Feature Collection' },
  geopackage: { key: 'geopackage', name: 'GeoPackage', itemType: 'GeoPackage' },
  flatgeobuf: { key: 'flatgeobuf', name: 'FlatGeobuf', itemType: 'FlatGeobuf' },
  sqlite: { key: 'sqlite', name: 'SQLite', itemType: 'SQLite Geodatabase' },
};

/** Formats ArcGIS lists that this service cannot produce from a feature layer. */
const NOT_PRODUCIBLE = ['scene package', 'vector tile package'];

/** exportFormat is matched case-insensitively, as ArcGIS's own docs use several spellings. */
export function resolveExportFormat(raw: string): ExportFormatInfo {
  const key = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  const f = FORMATS[key];
  if (f) return f;
  const names = Object.values(FORMATS)
    .map((x) => x.name)
    .join(', ');
  if (NOT_PRODUCIBLE.includes(key)) {
    throw Errors.badRequest(`Export format '${raw}' cannot be produced by this service.`, [`Supported formats: ${names}.`]);
  }
  throw Errors.badRequest(`Invalid export format '${raw.slice(0, 64)}'.`, [`Supported formats: ${names}.`]);
}

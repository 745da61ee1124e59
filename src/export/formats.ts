/**
 * The export formats as users see them: what `exportFormat` accepts, the result item's type and content type, and
 * what the file holds. The API, the pages and the GDAL install check read it here without loading the writer, which
 * adds how each format is written (writer/formats.ts).
 */
import { itemFileMime } from '../core/storage/item-mime';

export const EXPORT_FORMATS = [
  'shapefile',
  'csv',
  'filegdb',
  'geojson',
  'kml',
  'excel',
  'featurecollection',
  'geopackage',
  'flatgeobuf',
  'sqlite',
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Where the geometry goes: GDAL geometry, x/y (points) or WKT columns in CSV, x/y columns or nothing in Excel. */
export type GeometryMode = 'gdal' | 'csv' | 'excel';

export interface ExportFormatInfo {
  /** The `exportFormat` value as ArcGIS spells it (matched case-insensitively) and echoed in the reply. */
  name: string;
  /** Type of the result item, as ArcGIS names it. */
  itemType: string;
  geometry: GeometryMode;
  /** The GDAL driver that writes the format (or is the reference for its own writer), which the install must have. */
  driver: string;
  /** Creation options for the dataset, which the install's driver must support. */
  dsco: string[];
}

export const FORMAT_CATALOGUE: Record<ExportFormat, ExportFormatInfo> = {
  shapefile: { name: 'Shapefile', itemType: 'Shapefile', geometry: 'gdal', driver: 'ESRI Shapefile', dsco: [] },
  csv: { name: 'CSV', itemType: 'CSV', geometry: 'csv', driver: 'CSV', dsco: [] },
  filegdb: { name: 'File Geodatabase', itemType: 'File Geodatabase', geometry: 'gdal', driver: 'OpenFileGDB', dsco: [] },
  geojson: { name: 'GeoJson', itemType: 'GeoJson', geometry: 'gdal', driver: 'GeoJSON', dsco: [] },
  kml: { name: 'KML', itemType: 'KML', geometry: 'gdal', driver: 'KML', dsco: [] },
  excel: { name: 'Excel', itemType: 'Microsoft Excel', geometry: 'excel', driver: 'XLSX', dsco: [] },
  featurecollection: { name: 'Feature Collection', itemType: 'Feature Collection', geometry: 'gdal', driver: 'GeoJSON', dsco: [] },
  geopackage: { name: 'GeoPackage', itemType: 'GeoPackage', geometry: 'gdal', driver: 'GPKG', dsco: [] },
  flatgeobuf: { name: 'FlatGeobuf', itemType: 'FlatGeobuf', geometry: 'gdal', driver: 'FlatGeobuf', dsco: [] },
  // SpatiaLite geometry, readable by ArcGIS Pro and QGIS.
  sqlite: { name: 'SQLite', itemType: 'SQLite Geodatabase', geometry: 'gdal', driver: 'SQLite', dsco: ['SPATIALITE=YES'] },
};

/** The Content-Type an export's file is written and served with: its item type's (core/storage/item-mime.ts). */
export function exportContentType(format: ExportFormat, fileName: string): string {
  return itemFileMime(FORMAT_CATALOGUE[format].itemType, fileName);
}

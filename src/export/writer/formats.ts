import type { ExportFormat } from './types';

/**
 * How each format is laid out on disk:
 * - container: every layer goes into one dataset (a file, or a .gdb directory that is zipped);
 * - per-layer: one file per layer; a plain file for one layer, a zip with one entry per layer otherwise;
 * - shapefile: one .shp set per layer, always zipped with the field-name mapping and a README;
 * - featurecollection: GDAL writes GeoJSON per layer, converted here into one ArcGIS JSON file.
 */
export type Layout = 'container' | 'per-layer' | 'shapefile' | 'featurecollection';

/** Where the geometry goes: GDAL geometry, x/y (points) or WKT columns in CSV, x/y columns or nothing in Excel. */
export type GeometryMode = 'gdal' | 'csv' | 'excel';

export interface FormatSpec {
  /** The `exportFormat` value as ArcGIS spells it (matched case-insensitively) and echoed in the reply. */
  name: string;
  /** Type of the result item, as ArcGIS names it. */
  itemType: string;
  driver: string;
  /** Extension of the dataset GDAL writes (a directory for .gdb). */
  ext: string;
  layout: Layout;
  geometry: GeometryMode;
  /** The SR the format mandates whatever targetSR says (KML, and GeoJSON per RFC 7946). */
  forcedSrs?: string;
  /** Longest layer name the format takes comfortably (Excel sheet names stop at 31). */
  maxLayerName: number;
  /** Creation options for the dataset (first layer only) and for every layer. */
  dsco: string[];
  lco: string[];
  /** Layer option naming the FID column, so the OID field becomes the FID (it is then not a plain field). */
  fidLco?: string;
  /** FlatGeobuf (GDAL 3.6) silently drops features without geometry, so those must be refused up front. */
  needsGeometry?: boolean;
  /** Written without GDAL unless the job asks for it: by PostgreSQL's COPY (copy-layer.ts, xlsx-workbook.ts). */
  engine?: 'copy';
}

export const FORMATS: Record<ExportFormat, FormatSpec> = {
  // 2GB_LIMIT makes GDAL fail instead of writing a .shp/.dbf other software misreads (see limits.ts).
  shapefile: {
    name: 'Shapefile',
    itemType: 'Shapefile',
    driver: 'ESRI Shapefile',
    ext: 'shp',
    layout: 'shapefile',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: [],
    lco: ['ENCODING=UTF-8', '2GB_LIMIT=YES'],
  },
  // GDAL 3.6's default quoting (IF_AMBIGUOUS) quotes every integer ("11"); quote only where CSV requires it.
  csv: {
    name: 'CSV',
    itemType: 'CSV',
    driver: 'CSV',
    ext: 'csv',
    layout: 'per-layer',
    geometry: 'csv',
    maxLayerName: 64,
    dsco: [],
    lco: ['STRING_QUOTING=IF_NEEDED'],
    engine: 'copy',
  },
  filegdb: {
    name: 'File Geodatabase',
    itemType: 'File Geodatabase',
    driver: 'OpenFileGDB',
    ext: 'gdb',
    layout: 'container',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: [],
    lco: [],
    fidLco: 'FID',
  },
  geojson: {
    name: 'GeoJson',
    itemType: 'GeoJson',
    driver: 'GeoJSON',
    ext: 'geojson',
    layout: 'per-layer',
    geometry: 'gdal',
    forcedSrs: 'EPSG:4326',
    maxLayerName: 64,
    dsco: [],
    lco: ['RFC7946=YES'],
    engine: 'copy',
  },
  kml: {
    name: 'KML',
    itemType: 'KML',
    driver: 'KML',
    ext: 'kml',
    layout: 'per-layer',
    geometry: 'gdal',
    forcedSrs: 'EPSG:4326',
    maxLayerName: 64,
    dsco: [],
    lco: [],
  },
  excel: {
    name: 'Excel',
    itemType: 'Microsoft Excel',
    driver: 'XLSX',
    ext: 'xlsx',
    // One workbook, a sheet per layer.
    layout: 'container',
    geometry: 'excel',
    maxLayerName: 31,
    dsco: [],
    lco: [],
    engine: 'copy',
  },
  // Intermediate GeoJSON in the layer's (or target) SR; RFC 7946 mode would force WGS84 and rewind rings.
  featurecollection: {
    name: 'Feature Collection',
    itemType: 'Feature Collection',
    driver: 'GeoJSON',
    ext: 'geojson',
    layout: 'featurecollection',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: [],
    lco: ['RFC7946=NO'],
  },
  geopackage: {
    name: 'GeoPackage',
    itemType: 'GeoPackage',
    driver: 'GPKG',
    ext: 'gpkg',
    layout: 'container',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: [],
    lco: [],
    fidLco: 'FID',
  },
  // SPATIAL_INDEX is chosen per layer (args.ts).
  flatgeobuf: {
    name: 'FlatGeobuf',
    itemType: 'FlatGeobuf',
    driver: 'FlatGeobuf',
    ext: 'fgb',
    layout: 'per-layer',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: [],
    lco: [],
    needsGeometry: true,
  },
  // SpatiaLite geometry, readable by ArcGIS Pro and QGIS; LAUNDER=NO keeps the ArcGIS field names as they are.
  sqlite: {
    name: 'SQLite',
    itemType: 'SQLite Geodatabase',
    driver: 'SQLite',
    ext: 'sqlite',
    layout: 'container',
    geometry: 'gdal',
    maxLayerName: 64,
    dsco: ['SPATIALITE=YES'],
    lco: ['LAUNDER=NO'],
    fidLco: 'FID',
  },
};

/** -nlt per ArcGIS geometry type: the layer's declared type, so every file holds exactly one type. */
export const GDAL_GEOMETRY_TYPE = {
  esriGeometryPoint: 'POINT',
  esriGeometryMultipoint: 'MULTIPOINT',
  esriGeometryPolyline: 'MULTILINESTRING',
  esriGeometryPolygon: 'MULTIPOLYGON',
} as const;

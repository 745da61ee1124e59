import { ExportFormat, ExportFormatInfo, FORMAT_CATALOGUE } from '../formats';

/**
 * How each format is laid out on disk:
 * - container: every layer goes into one dataset (a file, or a .gdb directory that is zipped);
 * - per-layer: one file per layer; a plain file for one layer, a zip with one entry per layer otherwise;
 * - shapefile: one .shp set per layer, always zipped with the field-name mapping and a README;
 * - featurecollection: GDAL writes GeoJSON per layer, converted here into one ArcGIS JSON file.
 */
export type Layout = 'container' | 'per-layer' | 'shapefile' | 'featurecollection';

/** How a format is written, beside what users see of it (FORMAT_CATALOGUE). */
export interface FormatSpec extends ExportFormatInfo {
  /** Extension of the dataset GDAL writes (a directory for .gdb). */
  ext: string;
  layout: Layout;
  /** The SR the format mandates whatever targetSR says (KML, and GeoJSON per RFC 7946). */
  forcedSrs?: string;
  /** Longest layer name the format takes comfortably (Excel sheet names stop at 31). */
  maxLayerName: number;
  /** Creation options for every layer (the dataset's are the catalogue's dsco, given with the first layer). */
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
    ...FORMAT_CATALOGUE.shapefile,
    ext: 'shp',
    layout: 'shapefile',
    maxLayerName: 64,
    lco: ['ENCODING=UTF-8', '2GB_LIMIT=YES'],
  },
  // GDAL 3.6's default quoting (IF_AMBIGUOUS) quotes every integer ("11"); quote only where CSV requires it.
  csv: {
    ...FORMAT_CATALOGUE.csv,
    ext: 'csv',
    layout: 'per-layer',
    maxLayerName: 64,
    lco: ['STRING_QUOTING=IF_NEEDED'],
    engine: 'copy',
  },
  filegdb: {
    ...FORMAT_CATALOGUE.filegdb,
    ext: 'gdb',
    layout: 'container',
    maxLayerName: 64,
    lco: [],
    fidLco: 'FID',
  },
  geojson: {
    ...FORMAT_CATALOGUE.geojson,
    ext: 'geojson',
    layout: 'per-layer',
    forcedSrs: 'EPSG:4326',
    maxLayerName: 64,
    lco: ['RFC7946=YES'],
    engine: 'copy',
  },
  kml: {
    ...FORMAT_CATALOGUE.kml,
    ext: 'kml',
    layout: 'per-layer',
    forcedSrs: 'EPSG:4326',
    maxLayerName: 64,
    lco: [],
  },
  excel: {
    ...FORMAT_CATALOGUE.excel,
    ext: 'xlsx',
    // One workbook, a sheet per layer.
    layout: 'container',
    maxLayerName: 31,
    lco: [],
    engine: 'copy',
  },
  // Intermediate GeoJSON in the layer's (or target) SR; RFC 7946 mode would force WGS84 and rewind rings.
  featurecollection: {
    ...FORMAT_CATALOGUE.featurecollection,
    ext: 'geojson',
    layout: 'featurecollection',
    maxLayerName: 64,
    lco: ['RFC7946=NO'],
  },
  geopackage: {
    ...FORMAT_CATALOGUE.geopackage,
    ext: 'gpkg',
    layout: 'container',
    maxLayerName: 64,
    lco: [],
    fidLco: 'FID',
  },
  // SPATIAL_INDEX is chosen per layer (args.ts).
  flatgeobuf: {
    ...FORMAT_CATALOGUE.flatgeobuf,
    ext: 'fgb',
    layout: 'per-layer',
    maxLayerName: 64,
    lco: [],
    needsGeometry: true,
  },
  // LAUNDER=NO keeps the ArcGIS field names as they are.
  sqlite: {
    ...FORMAT_CATALOGUE.sqlite,
    ext: 'sqlite',
    layout: 'container',
    maxLayerName: 64,
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

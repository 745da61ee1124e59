import type { Readable } from 'node:stream';
import { ExportedAttachment } from '../../attachments';
import { GeometryType, LayerField } from '../../layers/layer-schema';
import { ExportFormat } from '../formats';
import { DomainValues } from '../export-columns';

export type { ExportFormat };

/** One hosted layer (or table) to export: where it lives in PostGIS and what the caller asked for. */
export interface ExportLayerSource {
  id: number;
  name: string;
  schema: string;
  table: string;
  fields: LayerField[];
  geometryType: GeometryType | null;
  srid: number;
  /** From renderWhereSql() (literals inline, escaped), '1=1' when none. Inserted verbatim into the SELECT. */
  where: string;
  includeGeometry: boolean;
  /** CSV and Excel point layers only; default 'x' / 'y'. */
  xColumnName?: string;
  yColumnName?: string;
  /** CSV and Excel: coded values as codes (default), descriptions or both; aliases as headers (export-columns.ts). */
  domainValues?: DomainValues;
  fieldAliases?: boolean;
}

/** A file attached to an exported feature (the attachments module lists them), read when it is written. */
export type ExportAttachment = Omit<ExportedAttachment, 'key'> & { read(): Promise<Readable> };

/** targetSR: a wkid (ArcGIS web-mercator aliases are accepted) or a WKT string. */
export type ExportTarget = { srid: number } | { wkt: string };

export interface ExportProgress {
  layerIndex: number;
  layerCount: number;
  /** 0..1 within the current layer (1 once it is written, and while packaging). */
  fraction: number;
  /** 0..1 over the whole export, layers weighted by their row counts; reaches 1 when the file is ready. */
  overall: number;
  message: string;
}

export interface ExportJob {
  format: ExportFormat;
  layers: ExportLayerSource[];
  target?: ExportTarget;
  /** GDAL PostgreSQL connection string ('PG:host=... dbname=...'), see gdalPgConnection(). */
  pg: string;
  /** A private temp dir the caller creates and deletes; nothing is written outside it. */
  workDir: string;
  /** File base name (e.g. the export title); sanitised again here. */
  baseName: string;
  onProgress?: (p: ExportProgress) => void;
  signal?: AbortSignal;
  /** Deflate level of zipped outputs, 0 (store) to 9; default 1. */
  zipLevel?: number;
  /**
   * PostgreSQL application_name of the export's sessions (letters, digits, '_' and '-'); unique per run. The
   * job's name lets a delete end the sessions of a running export at once. Default: a random one.
   */
  sessionName?: string;
  /**
   * 'gdal' writes every format with GDAL, as before the streaming writers: the reference the equivalence tests
   * compare against. Default 'auto': CSV, GeoJSON and Excel's sheets by PostgreSQL's COPY (FORMATS[].engine).
   */
  engine?: 'auto' | 'gdal';
  /**
   * Called before the file users will download is written, with where it will be written (it is renamed to the
   * returned path at the end): storage may start uploading it while it is written.
   */
  onOutputStarted?: (path: string, fileName: string) => void;
  /** When a shapefile layer is written in parts, and how large they are (default SHAPEFILE_SPLIT; tests use small parts). */
  shapefileSplit?: ShapefileSplit;
  /** Rows of the smallest range of a CSV or GeoJSON layer written by parallel sessions (default MIN_RANGE_ROWS; tests use small ones). */
  copyRangeRows?: number;
  /**
   * CSV: text starting with a character that makes a spreadsheet run it as a formula is quoted with a single quote
   * in front (OWASP), so it shows as text. Default true. GDAL's CSV writer cannot: engine 'gdal' needs false.
   */
  escapeFormulas?: boolean;
  /**
   * The attachments of each layer's exported features, in `layers` order: GeoPackage and SQLite get a
   * `<layer>__ATTACH` table, the rest an `attachments/` folder in the zip (attachments.ts). None when not asked for.
   */
  attachments?: ExportAttachment[][];
  /** The relationships between exported layers (indexes into `layers`), for the formats that hold them. */
  relationships?: ExportRelationship[];
}

/** A one-to-one or one-to-many relationship between two exported layers, by key fields (their names). */
export interface ExportRelationship {
  name: string;
  origin: number;
  destination: number;
  originKey: string;
  destinationKey: string;
  cardinality: 'esriRelCardinalityOneToOne' | 'esriRelCardinalityOneToMany';
  composite: boolean;
  forwardLabel: string;
  backwardLabel: string;
}

/** When a layer's shapefile is written in parts (shapefile-parts.ts), and how large its parts are at most. */
export interface ShapefileSplit {
  /** Layers with fewer rows are written whole. */
  minRows: number;
  /** Rows per part at most: what shapelib holds per translate (16 bytes a row) and what waits on disk to be joined. */
  partRows: number;
}

export interface ExportOutput {
  /** Absolute path of the result, directly inside workDir. */
  path: string;
  fileName: string;
  contentType: string;
  size: number;
}

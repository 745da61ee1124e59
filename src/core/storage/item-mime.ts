import * as path from 'node:path';

/** What every file of an unknown type, or of a known type under an unexpected name, is served as. */
export const OCTET_STREAM = 'application/octet-stream';
export const ZIP_MIME = 'application/zip';

interface ItemFileType {
  /** The type's file as served, whatever the upload said it was. */
  mime: string;
  /**
   * Other forms the type's file may take, by lower-case extension: exports of several layers are zipped, a KML item
   * may be a KMZ. Only types a browser never runs as a script or renders as a page may appear here.
   */
  byExtension?: Record<string, string>;
}

const zipped = { zip: ZIP_MIME };
const IMAGES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
};

/**
 * The one table of item file types: ArcGIS item type -> the Content-Type its data is served with (downloads, ranges
 * and presigned redirects alike) and exports are written with. The uploader's Content-Type is never used: a file
 * uploaded as `text/javascript` must not come back as a script from this origin, where the pages' `script-src 'self'`
 * would run it. No entry is HTML, SVG, XML a browser renders, or JavaScript; what is not here is `application/octet-stream`.
 */
const ITEM_FILE_TYPES: Record<string, ItemFileType> = {
  CSV: { mime: 'text/csv; charset=utf-8', byExtension: zipped },
  Shapefile: { mime: ZIP_MIME },
  'File Geodatabase': { mime: ZIP_MIME },
  GeoJson: { mime: 'application/geo+json', byExtension: zipped },
  GeoJSON: { mime: 'application/geo+json', byExtension: zipped },
  KML: { mime: 'application/vnd.google-earth.kml+xml', byExtension: { ...zipped, kmz: 'application/vnd.google-earth.kmz' } },
  'Microsoft Excel': {
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    byExtension: { xls: 'application/vnd.ms-excel', ...zipped },
  },
  'Microsoft Word': {
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    byExtension: { doc: 'application/msword' },
  },
  'Microsoft Powerpoint': {
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    byExtension: { ppt: 'application/vnd.ms-powerpoint' },
  },
  PDF: { mime: 'application/pdf' },
  Image: { mime: OCTET_STREAM, byExtension: IMAGES },
  'Feature Collection': { mime: 'application/json' },
  GeoPackage: { mime: 'application/geopackage+sqlite3' },
  FlatGeobuf: { mime: OCTET_STREAM, byExtension: zipped },
  'SQLite Geodatabase': { mime: 'application/vnd.sqlite3', byExtension: zipped },
  'Code Sample': { mime: ZIP_MIME },
};

/** The Content-Type of an item's file, from its item type and (for the type's known variants) its file name. */
export function itemFileMime(itemType: string, fileName: string): string {
  const entry = Object.hasOwn(ITEM_FILE_TYPES, itemType) ? ITEM_FILE_TYPES[itemType] : undefined;
  if (!entry) return OCTET_STREAM;
  const ext = path.extname(fileName).slice(1).toLowerCase();
  return (entry.byExtension && Object.hasOwn(entry.byExtension, ext) ? entry.byExtension[ext] : undefined) ?? entry.mime;
}

/**
 * Feature attachments by lower-case extension, from the item types above (the same rule: our word, never the
 * uploader's, and nothing a browser runs or renders as a page); anything else is `application/octet-stream`.
 */
const ATTACHMENT_TYPES: Record<string, string> = {
  ...IMAGES,
  bmp: 'image/bmp',
  pdf: ITEM_FILE_TYPES.PDF.mime,
  csv: ITEM_FILE_TYPES.CSV.mime,
  txt: 'text/plain; charset=utf-8',
  zip: ZIP_MIME,
  json: 'application/json',
  geojson: ITEM_FILE_TYPES.GeoJSON.mime,
  kml: ITEM_FILE_TYPES.KML.mime,
  kmz: 'application/vnd.google-earth.kmz',
  gpkg: ITEM_FILE_TYPES.GeoPackage.mime,
  xlsx: ITEM_FILE_TYPES['Microsoft Excel'].mime,
  xls: 'application/vnd.ms-excel',
  docx: ITEM_FILE_TYPES['Microsoft Word'].mime,
  doc: 'application/msword',
  pptx: ITEM_FILE_TYPES['Microsoft Powerpoint'].mime,
  ppt: 'application/vnd.ms-powerpoint',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
};

/** The Content-Type a feature attachment is listed and served with, from its file name alone. */
export function attachmentMime(fileName: string): string {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  return Object.hasOwn(ATTACHMENT_TYPES, ext) ? ATTACHMENT_TYPES[ext] : OCTET_STREAM;
}

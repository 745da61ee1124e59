/**
 * The files a service can be published from, in one table: the `filetype` request value, the GDAL driver that
 * reads it, the item types it may come from, and how messages name it. Read by the request, the job and the
 * worker's start-up driver check; it loads no GDAL.
 */
export const PUBLISH_FILE_TYPES = {
  geojson: { driver: 'GeoJSON', label: 'GeoJSON', itemTypes: ['GeoJson', 'GeoJSON'] },
  csv: { driver: 'CSV', label: 'CSV', itemTypes: ['CSV'] },
  shapefile: { driver: 'ESRI Shapefile', label: 'zipped shapefile', itemTypes: ['Shapefile'] },
  geopackage: { driver: 'GPKG', label: 'GeoPackage', itemTypes: ['GeoPackage'] },
} as const satisfies Record<string, { driver: string; label: string; itemTypes: readonly string[] }>;

export type PublishFileType = keyof typeof PUBLISH_FILE_TYPES;

/** The request's `filetype` (any case), or undefined when it names no file type we publish. */
export function publishFileType(raw: string): PublishFileType | undefined {
  const t = raw.trim().toLowerCase();
  return Object.hasOwn(PUBLISH_FILE_TYPES, t) ? (t as PublishFileType) : undefined;
}

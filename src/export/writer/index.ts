/**
 * Export writer: hosted layers (PostGIS) → an ArcGIS export file through GDAL, one vectorTranslate per layer.
 *
 *   const out = await writeExport({ format: 'shapefile', layers, pg: gdalPgConnection(url), workDir, baseName });
 *   // out.path is inside workDir; the caller moves it into place and deletes workDir.
 *
 * ExportWriteError: the user can fix it (limits, targetSR, data the format cannot hold): fail without retry.
 * An abort (job.signal) rejects with signal.reason. Anything else may be transient.
 */
export { writeExport } from './write-export';
export { ExportWriteError } from './errors';
export { EXPORT_FORMATS } from './types';
export type { ExportFormat, ExportJob, ExportLayerSource, ExportOutput, ExportProgress, ExportTarget } from './types';

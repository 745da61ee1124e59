/**
 * The export writer's only way in: hosted layers (PostGIS) → one ArcGIS export file, written by the format's engine
 * (PostgreSQL's COPY for CSV, GeoJSON and Excel, GDAL for the rest; see README.md).
 *
 *   const out = await writeExport({ format: 'shapefile', layers, pg: gdalPgConnection(url), workDir, baseName });
 *   // out.path is inside workDir; the caller moves it into place and deletes workDir.
 *
 * ExportWriteError: the user can fix it (limits, targetSR, data the format cannot hold): fail without retry.
 * An abort (job.signal) rejects with signal.reason. Anything else may be transient.
 */
import { ExportJob, ExportOutput } from './types';

export { ExportWriteError } from './errors';
export type {
  ExportAttachment,
  ExportFormat,
  ExportJob,
  ExportLayerSource,
  ExportOutput,
  ExportProgress,
  ExportRelationship,
  ExportTarget,
} from './types';

/** Writes the export; the engines (and GDAL) are loaded on the first call, so the API, which only declares the job, never loads them. */
export async function writeExport(job: ExportJob): Promise<ExportOutput> {
  const { writeExport: write } = await import('./write-export');
  return write(job);
}

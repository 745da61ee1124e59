import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ArcGISIdentityManager } from '@esri/arcgis-rest-request';
import { exportItem, getItem, getItemData, getItemStatus } from '@esri/arcgis-rest-portal';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * An export as arcgis-rest-js runs one: exportItem, getItemStatus until completed (it rejects on 'failed', which
 * fails the test with the job's message), then getItemData as a file written under `dir`. Returns the file, its
 * GDAL path (through /vsizip/ for a zip), the result item and exportItem's reply.
 */
export async function exportAndDownload(
  auth: ArcGISIdentityManager,
  serviceItemId: string,
  dir: string,
  exportFormat: string,
  exportParameters?: any,
  title?: string,
) {
  const r = await exportItem({ id: serviceItemId, exportFormat: exportFormat as any, exportParameters, title, authentication: auth });
  const until = Date.now() + 60000;
  for (;;) {
    const s = await getItemStatus({ id: r.exportItemId, jobId: r.jobId, jobType: 'export', authentication: auth });
    if (s.status === 'completed') break;
    if (Date.now() > until) throw new Error(`export ${exportFormat} still ${s.status}: ${s.statusMessage}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const item = await getItem(r.exportItemId, { authentication: auth });
  const blob: Blob = await getItemData(r.exportItemId, { file: true, authentication: auth });
  const file = path.join(dir, `${r.exportItemId}-${item.name}`);
  writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  return { file, gdalPath: item.name!.endsWith('.zip') ? `/vsizip/${file}` : file, item, reply: r, size: blob.size };
}

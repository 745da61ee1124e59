import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ArcGISIdentityManager } from '@esri/arcgis-rest-request';
import { getItem, getItemData, getItemStatus } from '@esri/arcgis-rest-portal';

/**
 * The rest of an export as arcgis-rest-js runs one, after the spec's own exportItem (the portal coverage guard reads
 * the specs for it): getItemStatus until completed (it rejects on 'failed', which fails the test with the job's
 * message), then getItemData as a file written under `dir`. Returns the file, its GDAL path (through /vsizip/ for a
 * zip), the result item and its size as downloaded.
 */
export async function downloadExport(auth: ArcGISIdentityManager, r: { exportItemId: string; jobId: string }, dir: string) {
  const until = Date.now() + 60000;
  for (;;) {
    const s = await getItemStatus({ id: r.exportItemId, jobId: r.jobId, jobType: 'export', authentication: auth });
    if (s.status === 'completed') break;
    if (Date.now() > until) throw new Error(`export ${r.exportItemId} still ${s.status}: ${s.statusMessage}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const item = await getItem(r.exportItemId, { authentication: auth });
  const blob: Blob = await getItemData(r.exportItemId, { file: true, authentication: auth });
  const file = path.join(dir, `${r.exportItemId}-${item.name}`);
  writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  return { file, gdalPath: item.name!.endsWith('.zip') ? `/vsizip/${file}` : file, item, size: blob.size };
}

import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createHostedService, get, post, uniq } from './client';

/** The source layer's fields: the view shows Name and Visits, and hides Kind (its filter), Secret and Salary. */
export const VIEW_SOURCE_FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 40 },
  { name: 'Kind', type: 'esriFieldTypeString', length: 10 },
  { name: 'Secret', type: 'esriFieldTypeString', length: 40 },
  { name: 'Salary', type: 'esriFieldTypeInteger' },
  { name: 'Visits', type: 'esriFieldTypeInteger' },
];

/** Row i of the source: public when i is even; x from 10 to 10 + (rows - 1) / 10. */
export const viewSourceRow = (i: number) => ({
  attributes: { Name: `place-${i}`, Kind: i % 2 === 0 ? 'public' : 'private', Secret: `secret-${i}`, Salary: 1000 + i, Visits: i },
  geometry: { x: 10 + i / 10, y: 50 },
});

export interface ViewFixture {
  source: { name: string; url: string; itemId: string };
  view: { name: string; url: string; itemId: string };
  rows: number;
}

/**
 * A private source service (layer 0, points, `rows` rows) and a view of it showing Name and Visits of the public
 * rows (Kind = 'public'), with the area filter given (an envelope in WGS 84) if any. Nothing is shared.
 */
export async function viewFixture(
  base: string,
  owner: { username: string; token: string },
  rows = 20,
  area?: { xmin: number; ymin: number; xmax: number; ymax: number },
  capabilities = 'Query',
): Promise<ViewFixture> {
  const sourceName = uniq('src');
  const source = await createHostedService(
    base,
    owner,
    [
      {
        id: 0,
        name: 'Places',
        geometryType: 'esriGeometryPoint',
        fields: VIEW_SOURCE_FIELDS,
        extent: { spatialReference: { wkid: 4326 } },
      },
    ],
    { name: sourceName, capabilities: 'Query,Create,Update,Delete,Editing' },
  );
  const features = Array.from({ length: rows }, (_, i) => viewSourceRow(i));
  const added = await post(`${source.serviceurl}/0`, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
  if (!added.body?.addResults?.every((a: { success: boolean }) => a.success)) throw new Error(`addFeatures failed: ${added.text}`);
  const viewName = uniq('view');
  const created = await post(
    base,
    `content/users/${owner.username}/createService`,
    { createParameters: JSON.stringify({ name: viewName, capabilities }), outputType: 'featureService', isView: 'true' },
    owner.token,
  );
  if (!created.body?.itemId) throw new Error(`createService failed: ${created.text}`);
  const viewLayerDefinition = {
    sourceServiceName: sourceName,
    sourceLayerId: 0,
    sourceLayerFields: [{ name: 'Name' }, { name: 'Visits' }],
    ...(area
      ? {
          filter: {
            operator: 'esriSpatialRelIntersects',
            value: { geometryType: 'esriGeometryEnvelope', geometry: { ...area, spatialReference: { wkid: 4326 } } },
          },
        }
      : {}),
  };
  const admin = created.body.serviceurl.replace('/rest/services/', '/rest/admin/services/');
  const def = await post(
    admin,
    'addToDefinition',
    {
      addToDefinition: JSON.stringify({
        layers: [{ name: 'Public places', viewDefinitionQuery: "Kind = 'public'", adminLayerInfo: { viewLayerDefinition } }],
      }),
    },
    owner.token,
  );
  if (!def.body?.success) throw new Error(`addToDefinition failed: ${def.text}`);
  return {
    source: { name: sourceName, url: source.serviceurl, itemId: source.itemId },
    view: { name: viewName, url: created.body.serviceurl, itemId: created.body.itemId },
    rows,
  };
}

/**
 * Exports the service item to `format` as `owner` (a worker must be running), waits for the job and writes the
 * result into `dir`; returns the path GDAL opens (inside the zip for zipped formats).
 */
export async function exportToFile(
  base: string,
  owner: { username: string; token: string },
  itemId: string,
  format: string,
  dir: string,
  params: Record<string, string> = {},
): Promise<string> {
  const r = await post(base, `content/users/${owner.username}/export`, { itemId, exportFormat: format, ...params }, owner.token);
  if (!r.body?.exportItemId) throw new Error(`export failed: ${r.text}`);
  const until = Date.now() + 90_000;
  for (;;) {
    const s = await get(
      base,
      `content/users/${owner.username}/items/${r.body.exportItemId}/status`,
      { jobId: r.body.jobId, jobType: 'export' },
      owner.token,
    );
    if (s.body?.status === 'completed') break;
    if (s.body?.status === 'failed' || Date.now() > until) throw new Error(`export ${format}: ${s.text}`);
    await new Promise((res) => setTimeout(res, 200));
  }
  const item = await get(base, `content/items/${r.body.exportItemId}`, {}, owner.token);
  const res = await fetch(`${base}/content/items/${r.body.exportItemId}/data?token=${owner.token}`);
  if (res.status !== 200) throw new Error(`download: ${res.status}`);
  const file = path.join(dir, `${r.body.exportItemId}-${item.body.name}`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file.endsWith('.zip') ? `/vsizip/${file}` : file;
}

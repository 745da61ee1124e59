import { createHostedService, post, uniq } from './client';
import { square } from './rings';

/** Text that is markup if a page forgets to escape it. */
export const MARKUP = '<img src=x onerror="alert(1)">&amp;';

const fields = [
  { name: 'Name', alias: 'Place name', type: 'esriFieldTypeString', length: 80 },
  { name: 'Kind', alias: 'Kind of place', type: 'esriFieldTypeString', length: 20 },
  { name: 'Opened', alias: 'Opened on', type: 'esriFieldTypeDate' },
];

/** A polygon's rings: one square. */
const squareRings = (x: number, y: number, d: number) => [square(x, y, d)];

/** Polygons, lines and points around 10°E 50°N (WGS 84), one of each kind named with markup. */
export const SAMPLE = {
  areas: [
    { attributes: { Name: 'North field', Kind: 'field', Opened: Date.UTC(2001, 0, 2) }, geometry: { rings: squareRings(10.0, 50.6, 0.3) } },
    { attributes: { Name: MARKUP, Kind: 'pond', Opened: null }, geometry: { rings: squareRings(10.6, 50.1, 0.3) } },
  ],
  roads: [
    {
      attributes: { Name: 'High street', Kind: 'road', Opened: Date.UTC(1990, 5, 1) },
      geometry: {
        paths: [
          [
            [10.0, 50.0],
            [10.5, 50.5],
            [11.0, 50.4],
          ],
        ],
      },
    },
  ],
  sites: [
    { attributes: { Name: 'Mill', Kind: 'site', Opened: Date.UTC(1850, 3, 3) }, geometry: { x: 10.2, y: 50.2 } },
    { attributes: { Name: 'Well', Kind: 'site', Opened: null }, geometry: { x: 10.9, y: 50.9 } },
    { attributes: { Name: 'Tower', Kind: 'site', Opened: null }, geometry: { x: 10.5, y: 50.75 } },
  ],
};

export interface SampleService {
  name: string;
  url: string;
  itemId: string;
}

/**
 * A hosted service with three layers (0 Areas: polygons, 1 Roads: lines, 2 Sites: points) holding SAMPLE,
 * shared as asked: private (the default), with the organisation, or with everyone.
 */
export async function sampleService(
  base: string,
  owner: { username: string; token: string },
  access: 'private' | 'org' | 'public' = 'private',
  name = uniq('dir'),
): Promise<SampleService> {
  const layers = [
    { id: 0, name: 'Areas', geometryType: 'esriGeometryPolygon', fields, displayField: 'Name' },
    { id: 1, name: 'Roads', geometryType: 'esriGeometryPolyline', fields, displayField: 'Name' },
    { id: 2, name: 'Sites', geometryType: 'esriGeometryPoint', fields, displayField: 'Name' },
  ].map((l) => ({ ...l, extent: { spatialReference: { wkid: 4326 } } }));
  const created = await createHostedService(base, owner, layers, name);
  const url = created.serviceurl;
  for (const [i, features] of [SAMPLE.areas, SAMPLE.roads, SAMPLE.sites].entries()) {
    const r = await post(`${url}/${i}`, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
    if (!r.body?.addResults?.every((a: { success: boolean }) => a.success)) throw new Error(`addFeatures failed: ${r.text}`);
  }
  if (access !== 'private') {
    const share: Record<string, string> = access === 'public' ? { everyone: 'true', org: 'true' } : { org: 'true' };
    const r = await post(base, `content/users/${owner.username}/items/${created.itemId}/share`, share, owner.token);
    if (r.body?.error) throw new Error(`share failed: ${r.text}`);
  }
  return { name, url, itemId: created.itemId };
}

/**
 * GDAL's ESRIJSON driver (the system's ogrinfo and ogr2ogr) reading a hosted layer of several pages: it opens the
 * query URL with f=json, pages with resultOffset while the reply says exceededTransferLimit, and asks the server for
 * the count (returnCountOnly) and the extent (returnExtentOnly with f=geojson, read from its bbox), so a summary must
 * take one request each rather than paging the whole layer. Every request the app receives for the layer's query
 * endpoint is counted.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

const run = promisify(execFile);
const PAGE = 10;
const COUNT = 35;
const START = Date.UTC(2024, 0, 1);

/** Points over the Alps; the extent is that of the first and the last. */
const feature = (i: number) => ({
  attributes: { Name: `place ${i} – ß`, Rank: i, Score: i / 4, Seen: START + i * 86_400_000 },
  geometry: { x: 6 + i * 0.25, y: 45 + i * 0.1 },
});

describe('GDAL (ogrinfo, ogr2ogr) reads a hosted layer', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let layer: string;
  let token: string;
  let dir: string;
  const requests: URL[] = [];
  const count = (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === `${new URL(layer).pathname}/query`) requests.push(url);
  };

  beforeAll(async () => {
    token = owner.token;
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('gdal'), maxRecordCount: PAGE }), outputType: 'featureService' },
      token,
    );
    const url = created.body.serviceurl;
    const fields = [
      { name: 'Name', type: 'esriFieldTypeString', length: 40 },
      { name: 'Rank', type: 'esriFieldTypeInteger' },
      { name: 'Score', type: 'esriFieldTypeDouble' },
      { name: 'Seen', type: 'esriFieldTypeDate' },
    ];
    const layers = [{ name: 'Places', geometryType: 'esriGeometryPoint', fields, extent: { spatialReference: { wkid: 4326 } } }];
    const def = await post(
      url.replace('/rest/services/', '/rest/admin/services/'),
      'addToDefinition',
      { addToDefinition: JSON.stringify({ layers }) },
      token,
    );
    expect(def.body.success).toBe(true);
    layer = `${url}/0`;
    const added = await post(
      layer,
      'addFeatures',
      { features: JSON.stringify(Array.from({ length: COUNT }, (_, i) => feature(i))) },
      token,
    );
    expect(added.body.addResults).toHaveLength(COUNT);
    t.app.getHttpServer().on('request', count);
    dir = mkdtempSync(path.join(tmpdir(), 'gdal-'));
  });
  afterAll(async () => {
    t?.app.getHttpServer().off('request', count);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The ESRIJSON driver's URL: it pages only when the query says f=json. */
  const source = () => `${layer}/query?${new URLSearchParams({ where: '1=1', outFields: '*', f: 'json', token })}`;

  it('ogrinfo -so gets the count, fields, spatial reference and extent in three requests, without paging', async () => {
    requests.length = 0;
    const { stdout } = await run('ogrinfo', ['-ro', '-so', '-al', source()], { timeout: 60_000 });
    expect(stdout).toMatch(/using driver `ESRIJSON' successful\./);
    expect(stdout).toMatch(new RegExp(`^Feature Count: ${COUNT}$`, 'm'));
    const [xmin, ymin] = [feature(0).geometry.x, feature(0).geometry.y];
    const [xmax, ymax] = [feature(COUNT - 1).geometry.x, feature(COUNT - 1).geometry.y];
    const extent = /^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)$/m.exec(stdout);
    expect(extent?.slice(1).map(Number)).toEqual([xmin, ymin, xmax, ymax]);
    expect(stdout).toMatch(/ID\["EPSG",4326\]\]$/m);
    for (const field of ['OBJECTID: Integer', 'Name: String', 'Rank: Integer', 'Score: Real', 'Seen: (String|DateTime)'])
      expect(stdout).toMatch(new RegExp(`^${field} `, 'm'));

    // The first page to open the layer, the count, the extent: no page after the first.
    expect(requests).toHaveLength(3);
    expect(requests.filter((u) => Number(u.searchParams.get('resultOffset') ?? 0) > 0)).toEqual([]);
    const extentRequests = requests.filter((u) => u.searchParams.get('returnExtentOnly') === 'true');
    expect(extentRequests).toHaveLength(1);
    expect(extentRequests[0].searchParams.get('f')).toBe('geojson');
    expect(requests.filter((u) => u.searchParams.get('returnCountOnly') === 'true')).toHaveLength(1);
  }, 90_000);

  it('ogr2ogr pages through every feature and writes them with their attributes and places', async () => {
    requests.length = 0;
    const out = path.join(dir, 'places.geojson');
    await run('ogr2ogr', ['-f', 'GeoJSON', out, source()], { timeout: 60_000 });
    const fc = JSON.parse(readFileSync(out, 'utf8'));
    expect(fc.features).toHaveLength(COUNT);
    const byRank = new Map<number, any>(fc.features.map((f: any) => [f.properties.Rank, f]));
    for (let i = 0; i < COUNT; i++) {
      const f = byRank.get(i);
      const source = feature(i);
      expect(f.properties).toMatchObject({ Name: source.attributes.Name, Score: source.attributes.Score });
      // GDAL 3.6 reads esriFieldTypeDate as text of the epoch milliseconds; later versions as a date.
      const seen = /^\d+$/.test(f.properties.Seen) ? Number(f.properties.Seen) : Date.parse(f.properties.Seen.replace(/\//g, '-'));
      expect(seen).toBe(source.attributes.Seen);
      expect(f.geometry).toEqual({ type: 'Point', coordinates: [source.geometry.x, source.geometry.y] });
    }
    // Four pages of ten, each asked for once.
    const offsets = requests.filter((u) => !u.searchParams.get('returnCountOnly') && !u.searchParams.get('returnExtentOnly'));
    expect(offsets.map((u) => Number(u.searchParams.get('resultOffset') ?? 0)).sort((a, b) => a - b)).toEqual([0, 10, 20, 30]);
  }, 90_000);

  it('answers returnExtentOnly with f=geojson as a bbox in WGS 84, with the count when asked, and none when empty', async () => {
    const q = async (params: Record<string, string>) =>
      (await get(layer, 'query', { f: 'geojson', returnExtentOnly: 'true', ...params }, token)).body;
    const [a, b] = [feature(30).geometry, feature(COUNT - 1).geometry];
    expect(await q({ where: 'Rank >= 30', returnCountOnly: 'true' })).toEqual({
      type: 'FeatureCollection',
      properties: { count: 5 },
      bbox: [a.x, a.y, b.x, b.y],
      features: [],
    });
    expect(await q({ where: 'Rank >= 30', outSR: '3857' })).toEqual({
      type: 'FeatureCollection',
      bbox: [a.x, a.y, b.x, b.y],
      features: [],
    });
    expect(await q({ where: '1=0' })).toEqual({ type: 'FeatureCollection', features: [] });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser } from '../support/client';
import { requireQgis, runQgisScript } from '../support/qgis';
import { sampleService, SampleService } from '../support/sample-service';

/**
 * QGIS (Debian's python3-qgis and qgis-providers) browses the catalog with its own ArcGIS REST browser items, as a
 * person expanding the connection in the Browser panel, and opens a layer it found there. Each run gets its own
 * profile, cache and auth database, so runs never share QGIS state.
 */

interface Browsed {
  services: Record<string, { path: string; layers: { name: string; uri: string; provider: string }[] }>;
  opened?: {
    valid: boolean;
    count?: number;
    fields?: string[];
    crs?: string;
    inRect?: string[];
    renderer?: { type: string | null; symbol: string | null; color: string | null };
  };
}

describe('QGIS browses the services catalog', () => {
  let t: TestApp;
  let owner: { username: string; token: string };
  let pub: SampleService;
  let priv: SampleService;
  let home: string;

  beforeAll(async () => {
    requireQgis();
    t = await startApp();
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    pub = await sampleService(t.base, owner, 'public');
    priv = await sampleService(t.base, owner, 'private');
  }, 60_000);
  beforeEach(() => {
    home = mkdtempSync(path.join(tmpdir(), 'qgis-home-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));
  afterAll(() => t?.close());

  const browse = (...args: string[]) => runQgisScript<Browsed>('browse_catalog.py', [`${t.root}/arcgis/rest/services`, ...args], home);

  it('anonymous: lists the public service down to its layers, not the private one', async () => {
    const b = await browse();
    expect(Object.keys(b.services)).toContain(pub.name);
    expect(Object.keys(b.services)).not.toContain(priv.name);
    expect(b.services[pub.name].path).toContain(`${pub.name}/FeatureServer`);
    expect(b.services[pub.name].layers.map((l) => l.name)).toEqual(['Areas', 'Roads', 'Sites']);
    expect(b.services[pub.name].layers[2]).toMatchObject({
      provider: 'arcgisfeatureserver',
      uri: expect.stringContaining(`url='${pub.url}/2'`),
    });
  }, 150_000);

  it('with a token: lists the private service too, opens a layer from it, counts and filters by rectangle', async () => {
    const b = await browse(owner.token, priv.name, 'Sites', '10.0,50.0,10.6,50.8');
    expect(Object.keys(b.services)).toEqual(expect.arrayContaining([pub.name, priv.name]));
    expect(b.services[priv.name].layers.map((l) => l.name)).toEqual(['Areas', 'Roads', 'Sites']);
    expect(b.opened).toEqual({
      valid: true,
      count: 3,
      fields: ['OBJECTID', 'Name', 'Kind', 'Opened'],
      crs: 'EPSG:4326',
      inRect: ['Mill', 'Tower'],
      // Drawn with the layer's drawingInfo renderer: its marker symbol in its colour (0, 112, 255), not one QGIS picks.
      renderer: { type: 'singleSymbol', symbol: 'QgsSimpleMarkerSymbolLayer', color: '#ff0070ff' },
    });
  }, 150_000);
});

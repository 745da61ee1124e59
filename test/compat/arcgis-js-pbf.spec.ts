/**
 * The ArcGIS Maps SDK for JavaScript (@arcgis/core as installed, bundled by esbuild as an app would be) in Chromium
 * through playwright-core: a FeatureLayer on a hosted service that lists PBF in supportedQueryFormats must fetch its tiles
 * with f=pbf and view-mode quantization, draw them, and hold the features f=json gives, within the quantization
 * tolerance. The page is served from another origin than the API, as an app using the SDK is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { Browser, chromium, Page } from 'playwright-core';
import { startApp, TestApp } from '../support/app';
import { adminToken, createHostedService, createUser, get, post } from '../support/client';

/* eslint-disable @typescript-eslint/no-explicit-any */

const NODE_MODULES = path.resolve(__dirname, '../../node_modules');
const POINTS = 300;
const RED = [230, 0, 0];
/** What the page asked for that is not there: a module the import map does not resolve shows up here. */
const missing: string[] = [];
const pageErrors: string[] = [];

/** Points on a grid over Europe, every attribute type the SDK reads from a pbf Value, some null. */
function point(i: number) {
  return {
    attributes: {
      Name: i % 11 === 0 ? null : `p${i} – ß ✓`,
      Rank: i,
      Score: i % 7 === 0 ? null : i / 7,
      Seen: i % 5 === 0 ? null : Date.UTC(2024, 0, 1) + i * 60_000,
    },
    geometry: { x: -10 + (i % 20) * 1.5 + i * 1e-7, y: 36 + Math.floor(i / 20) * 1.2, spatialReference: { wkid: 4326 } },
  };
}
const square = (x: number, y: number, s: number) => [
  [x, y],
  [x, y + s],
  [x + s, y + s],
  [x + s, y],
  [x, y],
];
const POLYGONS = [
  { attributes: { Label: 'holed' }, geometry: { rings: [square(0, 45, 4), square(1, 46, 2).reverse()] } },
  { attributes: { Label: 'two parts' }, geometry: { rings: [square(8, 40, 2), square(12, 40, 2)] } },
];

/** The app: the SDK's modules bundled by esbuild, as an app built with a bundler ships them; its assets as installed. */
const APP = `
import esriConfig from '@arcgis/core/config.js';
import Map from '@arcgis/core/Map.js';
import MapView from '@arcgis/core/views/MapView.js';
import FeatureLayer from '@arcgis/core/layers/FeatureLayer.js';
import * as reactiveUtils from '@arcgis/core/core/reactiveUtils.js';
import IdentityManager from '@arcgis/core/identity/IdentityManager.js';
esriConfig.assetsPath = '/node_modules/@arcgis/core/assets';
const plain = (f) => ({ attributes: { ...f.attributes }, geometry: f.geometry && f.geometry.toJSON() });
window.draw = async ({ points, polygons, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const marker = { type: 'simple-marker', color: [${RED}], size: 8, outline: null };
  const fill = { type: 'simple-fill', color: [0, 0, 230, 0.5], outline: { color: [0, 0, 230], width: 1 } };
  const pointLayer = new FeatureLayer({ url: points, outFields: ['*'], renderer: { type: 'simple', symbol: marker } });
  const polygonLayer = new FeatureLayer({ url: polygons, outFields: ['*'], renderer: { type: 'simple', symbol: fill } });
  const view = new MapView({
    container: 'map',
    map: new Map({ layers: [polygonLayer, pointLayer] }),
    spatialReference: { wkid: 102100 },
    extent: { xmin: -1500000, ymin: 4200000, xmax: 2500000, ymax: 7200000, spatialReference: { wkid: 102100 } },
    ui: { components: [] },
  });
  await view.when();
  const views = [await view.whenLayerView(pointLayer), await view.whenLayerView(polygonLayer)];
  await reactiveUtils.whenOnce(() => !view.updating && views.every((v) => !v.updating));
  const drawn = [];
  for (const lv of views) {
    const q = lv.createQuery();
    q.outFields = ['*'];
    q.returnGeometry = true;
    drawn.push({ count: await lv.queryFeatureCount(), features: (await lv.queryFeatures(q)).features.map(plain) });
  }
  // FeatureLayer.queryFeatures asks the server (f=pbf without quantization, as the SDK sends it).
  const queried = await pointLayer.queryFeatures({ where: 'Rank >= 100', outFields: ['*'], returnGeometry: true, orderByFields: ['Rank'] });
  return {
    resolution: view.resolution,
    sdkSupportsPbf: pointLayer.capabilities.query.supportsFormatPBF,
    drawn,
    queried: { exceededTransferLimit: !!queried.exceededTransferLimit, features: queried.features.map(plain) },
  };
};
// Statistics and distinct values through the layer, as an app's charts and filters ask for them.
window.statistics = async ({ url, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const layer = new FeatureLayer({ url });
  await layer.load();
  const stats = await layer.queryFeatures({
    where: 'Pop > 0',
    outStatistics: [
      { statisticType: 'count', onStatisticField: 'OBJECTID', outStatisticFieldName: 'n' },
      { statisticType: 'sum', onStatisticField: 'Pop', outStatisticFieldName: 'total' },
      { statisticType: 'avg', onStatisticField: 'Pop', outStatisticFieldName: 'mean' },
    ],
    groupByFieldsForStatistics: ['Kind'],
    orderByFields: ['total DESC'],
  });
  const distinct = await layer.queryFeatures({ where: '1=1', outFields: ['Kind'], returnDistinctValues: true, returnGeometry: false, orderByFields: ['Kind'] });
  return {
    capabilities: { statistics: layer.capabilities.query.supportsStatistics, distinct: layer.capabilities.query.supportsDistinct },
    stats: { fields: stats.fields.map((f) => [f.name, f.type]), rows: stats.features.map((f) => ({ ...f.attributes })) },
    distinct: distinct.features.map((f) => f.attributes.Kind),
  };
};
window.ready = true;
`;

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="/node_modules/@arcgis/core/assets/esri/themes/light/main.css">
<style>html, body, #map { margin: 0; width: 800px; height: 600px; background: #fff; }</style>
</head><body><div id="map"></div><script type="module" src="/app.js"></script></body></html>`;

async function buildApp(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'arcgis-js-app-'));
  await build({
    stdin: { contents: APP, resolveDir: path.dirname(NODE_MODULES), loader: 'js', sourcefile: 'app.js' },
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: dir,
    entryNames: 'app',
    logLevel: 'error',
  });
  writeFileSync(path.join(dir, 'index.html'), PAGE);
  return dir;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** The app's origin: the built app, and the SDK's assets (workers, styles, translations) from node_modules. */
function serveApp(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [root, rel] = url.pathname.startsWith('/node_modules/')
      ? [NODE_MODULES, url.pathname.slice(14)]
      : [dir, url.pathname.slice(1) || 'index.html'];
    const file = path.join(root, decodeURIComponent(rel));
    if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      missing.push(url.pathname);
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Debian's Chromium (playwright-core downloads none); WebGL through SwiftShader, as there is no GPU. */
function launch(): Promise<Browser> {
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!executablePath) throw new Error('No Chromium: install Debian\'s "chromium" package or set CHROMIUM_PATH.');
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
  });
}

/** Web Mercator of a longitude/latitude, as the SDK projects it. */
function mercator(x: number, y: number): [number, number] {
  const r = 6378137;
  return [(x * Math.PI * r) / 180, r * Math.log(Math.tan(Math.PI / 4 + (y * Math.PI) / 360))];
}

describe('ArcGIS Maps SDK for JavaScript draws a hosted layer through f=pbf', () => {
  let t: TestApp;
  let app: Server;
  let appDir: string;
  let browser: Browser;
  let page: Page;
  let owner: { username: string; token: string };
  let points: string;
  let polygons: string;
  const queries: { url: URL; status: number; type: string }[] = [];

  beforeAll(async () => {
    t = await startApp();
    owner = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    const svc = await createHostedService(t.base, owner, [
      {
        name: 'Points',
        geometryType: 'esriGeometryPoint',
        fields: [
          { name: 'Name', type: 'esriFieldTypeString', length: 40 },
          { name: 'Rank', type: 'esriFieldTypeInteger' },
          { name: 'Score', type: 'esriFieldTypeDouble' },
          { name: 'Seen', type: 'esriFieldTypeDate' },
        ],
      },
      { name: 'Polygons', geometryType: 'esriGeometryPolygon', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
    ]);
    points = `${svc.serviceurl}/0`;
    polygons = `${svc.serviceurl}/1`;
    const feats = JSON.stringify(Array.from({ length: POINTS }, (_, i) => point(i)));
    expect((await post(points, 'addFeatures', { features: feats }, owner.token)).body.addResults).toHaveLength(POINTS);
    expect((await post(polygons, 'addFeatures', { features: JSON.stringify(POLYGONS) }, owner.token)).body.addResults).toHaveLength(2);
    appDir = await buildApp();
    app = await serveApp(appDir);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    page.setDefaultTimeout(120_000);
    // Nothing may leave this machine; every query the SDK sends is kept with how it was answered.
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
    page.on('response', (r) => {
      const url = new URL(r.url());
      if (url.pathname.endsWith('/query')) queries.push({ url, status: r.status(), type: r.headers()['content-type'] ?? '' });
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => (m.type() === 'error' ? pageErrors.push(m.text()) : undefined));
    await page.goto(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => (globalThis as any).ready === true);
  }, 300_000); // esbuild reads some 4,000 of the SDK's modules: tens of seconds on a busy two-core machine
  afterAll(async () => {
    await browser?.close();
    if (app) await new Promise((resolve) => app.close(resolve));
    await t?.close();
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  it('loads, queries and draws through f=pbf, with the features f=json gives', async () => {
    const r: any = await page.evaluate((args) => (globalThis as any).draw(args), {
      points,
      polygons,
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(missing).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(r.sdkSupportsPbf).toBe(true);

    // The tiles came as pbf, quantized in view mode, and were answered as such; no feature query went out as JSON.
    const tiles = queries.filter((q) => q.url.searchParams.get('quantizationParameters'));
    expect(tiles.length).toBeGreaterThan(0);
    for (const q of tiles) {
      expect(q.url.searchParams.get('f')).toBe('pbf');
      expect(JSON.parse(q.url.searchParams.get('quantizationParameters')!)).toMatchObject({ mode: 'view', originPosition: 'upperLeft' });
      expect(q.status).toBe(200);
      expect(q.type).toBe('application/x-protobuf');
    }
    const featureQueries = queries.filter((q) => !q.url.searchParams.get('returnCountOnly') && !q.url.searchParams.get('returnIdsOnly'));
    expect(featureQueries.map((q) => q.url.searchParams.get('f'))).toEqual(featureQueries.map(() => 'pbf'));

    // Drawn: every feature is in the layer views, with the attributes and (within one pixel) the places f=json gives.
    const [drawnPoints, drawnPolygons] = r.drawn;
    expect(drawnPoints.count).toBe(POINTS);
    expect(drawnPolygons.count).toBe(2);
    const json = (await get(points, 'query', { where: '1=1', outFields: '*', outSR: 102100 }, owner.token)).body;
    const byId = new Map<number, any>(json.features.map((f: any) => [f.attributes.OBJECTID, f]));
    for (const f of drawnPoints.features) {
      const j = byId.get(f.attributes.OBJECTID);
      expect(f.attributes).toEqual(j.attributes);
      expect(Math.abs(f.geometry.x - j.geometry.x)).toBeLessThanOrEqual(r.resolution);
      expect(Math.abs(f.geometry.y - j.geometry.y)).toBeLessThanOrEqual(r.resolution);
    }
    const labels = drawnPolygons.features.map((f: any) => f.attributes.Label).sort();
    expect(labels).toEqual(['holed', 'two parts']);
    for (const f of drawnPolygons.features) {
      const source = POLYGONS.find((p) => p.attributes.Label === f.attributes.Label)!;
      expect(f.geometry.rings).toHaveLength(2);
      f.geometry.rings.forEach((ring: number[][], i: number) => {
        const expected = source.geometry.rings[i].map(([x, y]) => mercator(x, y));
        expect(ring).toHaveLength(expected.length);
        ring.forEach(([x, y], k) => {
          expect(Math.abs(x - expected[k][0])).toBeLessThanOrEqual(r.resolution);
          expect(Math.abs(y - expected[k][1])).toBeLessThanOrEqual(r.resolution);
        });
      });
    }

    // Queried from the server through pbf without quantization: the f=json features within its 1e-9 degree grid.
    const jsonQueried = (await get(points, 'query', { where: 'Rank >= 100', outFields: '*', orderByFields: 'Rank' }, owner.token)).body;
    expect(r.queried.features).toHaveLength(POINTS - 100);
    r.queried.features.forEach((f: any, i: number) => {
      const j = jsonQueried.features[i];
      expect(f.attributes).toEqual(j.attributes);
      expect(Math.abs(f.geometry.x - j.geometry.x)).toBeLessThanOrEqual(5e-10);
      expect(Math.abs(f.geometry.y - j.geometry.y)).toBeLessThanOrEqual(5e-10);
    });
    expect(queries.some((q) => q.url.searchParams.get('where') === 'Rank >= 100' && q.url.searchParams.get('f') === 'pbf')).toBe(true);

    // And on screen: the red markers are there.
    const shot = await page.screenshot({
      type: 'png',
      path: process.env.SCREENSHOT_DIR ? path.join(process.env.SCREENSHOT_DIR, 'arcgis-js-pbf.png') : undefined,
    });
    const red = await page.evaluate(async (png) => {
      const doc = (globalThis as any).document;
      const img = new (globalThis as any).Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const c = doc.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 40 && d[i + 2] < 40) n++;
      return n;
    }, shot.toString('base64'));
    expect(red).toBeGreaterThan(POINTS * 10);
  }, 180_000);

  it('answers the SDK statistics grouped by a field (f=json) and distinct values (f=pbf)', async () => {
    const cities = Array.from({ length: 30 }, (_, i) => ({
      attributes: { Kind: ['town', 'city', 'village', null][i % 4], Pop: i % 7 === 6 ? null : 100 + i * 13 },
      geometry: { x: i * 0.1, y: 45 + i * 0.05, spatialReference: { wkid: 4326 } },
    }));
    const svc = await createHostedService(t.base, owner, [
      {
        name: 'Cities',
        geometryType: 'esriGeometryPoint',
        fields: [
          { name: 'Kind', type: 'esriFieldTypeString', length: 20 },
          { name: 'Pop', type: 'esriFieldTypeInteger' },
        ],
      },
    ]);
    const url = `${svc.serviceurl}/0`;
    expect((await post(url, 'addFeatures', { features: JSON.stringify(cities) }, owner.token)).body.addResults).toHaveLength(cities.length);
    const before = queries.length;
    const r: any = await page.evaluate((args) => (globalThis as any).statistics(args), {
      url,
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(pageErrors).toEqual([]);
    expect(r.capabilities).toEqual({ statistics: true, distinct: true });

    const groups = new Map<string | null, number[]>();
    for (const c of cities)
      if (c.attributes.Pop !== null && c.attributes.Pop > 0)
        groups.set(c.attributes.Kind, [...(groups.get(c.attributes.Kind) ?? []), c.attributes.Pop]);
    const expected = [...groups]
      .map(([Kind, pops]) => ({ Kind, n: pops.length, total: pops.reduce((a, b) => a + b, 0) }))
      .sort((a, b) => b.total - a.total);
    expect(r.stats.fields).toEqual([
      ['Kind', 'string'],
      ['n', 'integer'],
      ['total', 'integer'],
      ['mean', 'double'],
    ]);
    expect(r.stats.rows.map((a: any) => ({ Kind: a.Kind, n: a.n, total: a.total }))).toEqual(expected);
    r.stats.rows.forEach((a: any, i: number) => expect(a.mean).toBeCloseTo(expected[i].total / expected[i].n, 9));
    expect(r.distinct).toEqual(['city', 'town', 'village', null]);

    // The SDK sent the statistics as JSON (it keeps pbf for features) and the distinct values as pbf, answered as such.
    const sent = queries.slice(before).filter((q) => q.url.pathname.startsWith(new URL(url).pathname));
    const stats = sent.find((q) => q.url.searchParams.get('outStatistics'));
    expect(stats?.url.searchParams.get('f')).toBe('json');
    expect(stats?.status).toBe(200);
    const distinct = sent.find((q) => q.url.searchParams.get('returnDistinctValues') === 'true');
    expect(distinct?.url.searchParams.get('f')).toBe('pbf');
    expect(distinct?.type).toBe('application/x-protobuf');
  }, 120_000);
});

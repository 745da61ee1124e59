/**
 * The ArcGIS Maps SDK for JavaScript (@arcgis/core as installed, bundled by esbuild as an app would be) in Chromium
 * through playwright-core: a FeatureLayer on a hosted service that lists PBF in supportedQueryFormats must fetch its tiles
 * with f=pbf and view-mode quantization, draw them, and hold the features f=json gives, within the quantization
 * tolerance. The page is served from another origin than the API, as an app using the SDK is. The SDK's other
 * requests are checked in the same page: statistics, queryExtent and queryFeatureCount, and polygon and line layers
 * drawn through f=json (a service described without PBF) and f=pbf with what the SDK asks for when it draws them
 * (returnCentroid, maxAllowableOffset, quantizationParameters).
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
import { square } from '../support/rings';

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
const POLYGONS = [
  { attributes: { Label: 'holed' }, geometry: { rings: [square(0, 45, 4), square(1, 46, 2).reverse()] } },
  { attributes: { Label: 'two parts' }, geometry: { rings: [square(8, 40, 2), square(12, 40, 2)] } },
];

/** 0.4° squares on a grid over France and Germany (about 12 pixels wide in the view), a holed one, and a speck. */
const AREAS = [
  ...Array.from({ length: 24 }, (_, i) => ({
    attributes: { Label: `cell ${i}` },
    geometry: { rings: [square(-1 + (i % 6) * 2, 44 + Math.floor(i / 6) * 2, 0.4)] },
  })),
  { attributes: { Label: 'holed' }, geometry: { rings: [square(12, 46, 2), square(12.5, 46.5, 1).reverse()] } },
  { attributes: { Label: 'speck' }, geometry: { rings: [square(15, 49, 1e-5)] } },
];
/** Lines of 200 vertices wobbling by a fraction of a pixel. */
const WAVES = Array.from({ length: 5 }, (_, i) => ({
  attributes: { Label: `wave ${i}` },
  geometry: { paths: [Array.from({ length: 200 }, (_, k) => [-2 + k * 0.08, 43 + i * 1.5 + 0.005 * Math.sin(k)])] },
}));

/** The app: the SDK's modules bundled by esbuild, as an app built with a bundler ships them; its assets as installed. */
const APP = `
import esriConfig from '@arcgis/core/config.js';
import Map from '@arcgis/core/Map.js';
import MapView from '@arcgis/core/views/MapView.js';
import FeatureLayer from '@arcgis/core/layers/FeatureLayer.js';
import * as reactiveUtils from '@arcgis/core/core/reactiveUtils.js';
import IdentityManager from '@arcgis/core/identity/IdentityManager.js';
import Feature from '@arcgis/core/widgets/Feature.js';
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
// A layer's extent and count, as an app zooming to it asks (queryExtent sends returnExtentOnly and returnCountOnly).
window.summary = async ({ url, where, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const layer = new FeatureLayer({ url });
  await layer.load();
  const all = await layer.queryExtent();
  const some = await layer.queryExtent({ where, outSpatialReference: { wkid: 3857 } });
  const none = await layer.queryExtent({ where: '1=0' });
  return {
    supportsExtent: layer.capabilities.query.supportsExtent,
    all: { count: all.count, extent: all.extent.toJSON() },
    some: { count: some.count, extent: some.extent.toJSON() },
    none: { count: none.count, empty: !none.extent || none.extent.width === 0 || Number.isNaN(none.extent.width) },
    counts: [await layer.queryFeatureCount(), await layer.queryFeatureCount({ where })],
  };
};
// Polygon and line layers drawn in a view of their own, above the first one; what each layer view holds.
window.drawShapes = async ({ layers, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const div = document.createElement('div');
  div.style.cssText = 'position:absolute;left:0;top:0;width:800px;height:600px;background:#fff;z-index:10';
  document.body.appendChild(div);
  const symbols = {
    polygon: { type: 'simple-fill', color: [0, 0, 230, 0.5], outline: { color: [0, 0, 230], width: 1 } },
    polyline: { type: 'simple-line', color: [0, 150, 0], width: 2 },
  };
  const featureLayers = layers.map(({ url, kind }) => new FeatureLayer({ url, outFields: ['*'], renderer: { type: 'simple', symbol: symbols[kind] } }));
  const view = new MapView({
    container: div,
    map: new Map({ layers: featureLayers }),
    spatialReference: { wkid: 102100 },
    extent: { xmin: -300000, ymin: 5000000, xmax: 1800000, ymax: 6600000, spatialReference: { wkid: 102100 } },
    ui: { components: [] },
  });
  await view.when();
  const views = await Promise.all(featureLayers.map((l) => view.whenLayerView(l)));
  await reactiveUtils.whenOnce(() => !view.updating && views.every((v) => !v.updating));
  const drawn = [];
  for (const [i, lv] of views.entries()) {
    const q = lv.createQuery();
    q.outFields = ['*'];
    q.returnGeometry = true;
    drawn.push({
      pbf: featureLayers[i].capabilities.query.supportsFormatPBF,
      quantization: featureLayers[i].capabilities.query.supportsQuantization,
      centroid: featureLayers[i].capabilities.query.supportsCentroid,
      count: await lv.queryFeatureCount(),
      features: (await lv.queryFeatures(q)).features.map(plain),
    });
  }
  const resolution = view.resolution;
  view.destroy();
  div.remove();
  return { resolution, drawn };
};
// A hosted feature layer view as an app reads it: its fields, its features, and a where naming a field it hides.
window.readView = async ({ url, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const layer = new FeatureLayer({ url, outFields: ['*'] });
  await layer.load();
  const all = await layer.queryFeatures({ where: '1=1', outFields: ['*'], returnGeometry: true });
  const hidden = await layer.queryFeatures({ where: 'Score > 1', outFields: ['*'] }).then(() => 'answered', (e) => e.message);
  return {
    isView: layer.sourceJSON.isView,
    fields: layer.fields.map((f) => f.name),
    count: await layer.queryFeatureCount(),
    keys: [...new Set(all.features.flatMap((f) => Object.keys(f.attributes)))].sort(),
    ranks: all.features.map((f) => f.attributes.Rank).sort((a, b) => a - b),
    hidden,
  };
};

// A feature's attachments as a popup lists them: FeatureLayer.queryAttachments, by object id and type.
window.attachments = async ({ url, objectIds, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const layer = new FeatureLayer({ url });
  await layer.load();
  const byFeature = await layer.queryAttachments({ objectIds, attachmentTypes: ['image/jpeg'] });
  const infos = Object.entries(byFeature).map(([oid, list]) => [Number(oid), list.map((a) => ({ name: a.name, contentType: a.contentType, size: a.size, url: a.url }))]);
  return { supportsAttachment: layer.capabilities.data.supportsAttachment, supportsQuery: layer.capabilities.operations.supportsQueryAttachments, infos };
};
// A feature's popup as the SDK renders it (the Feature widget a popup shows): a fields table of the layer's fields.
window.popup = async ({ url, objectId, token, server }) => {
  IdentityManager.registerToken({ server, token, ssl: false });
  const layer = new FeatureLayer({ url, outFields: ['*'] });
  await layer.load();
  layer.popupTemplate = { title: '{Name}', content: [{ type: 'fields', fieldInfos: [{ fieldName: 'Name' }, { fieldName: 'Status' }] }] };
  const [graphic] = (await layer.queryFeatures({ objectIds: [objectId], outFields: ['*'], returnGeometry: true })).features;
  const div = document.createElement('div');
  document.body.appendChild(div);
  const widget = new Feature({ graphic, container: div, spatialReference: { wkid: 4326 } });
  // The widget renders when it is ready, in a later frame: its text is read once the fields table is there.
  const until = Date.now() + 60000;
  let text = '';
  while (Date.now() < until && !/Site status/.test(text)) {
    await new Promise((r) => setTimeout(r, 100));
    text = div.innerText;
  }
  const state = widget.viewModel.state;
  widget.destroy();
  div.remove();
  return { code: graphic.attributes.Status, domain: layer.getFieldDomain('Status')?.toJSON(), state, lines: text.split(String.fromCharCode(10)).map((l) => l.trim()).filter(Boolean) };
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

function distanceToPath([x, y]: number[], path: number[][]): number {
  let best = Infinity;
  for (let i = 1; i < path.length; i++) {
    const [[ax, ay], [bx, by]] = [path[i - 1], path[i]];
    const len = (bx - ax) ** 2 + (by - ay) ** 2;
    const t = len ? Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / len)) : 0;
    best = Math.min(best, Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay))));
  }
  return best;
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
  const queries: { url: URL; status: number; type: string; text: Promise<string> }[] = [];

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
      const type = r.headers()['content-type'] ?? '';
      if (url.pathname.endsWith('/query'))
        queries.push({
          url,
          status: r.status(),
          type,
          text: type.startsWith('application/json') ? r.text().catch(() => '') : Promise.resolve(''),
        });
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

  it("answers the SDK's queryExtent and queryFeatureCount with one request each", async () => {
    const before = queries.length;
    const r: any = await page.evaluate((args) => (globalThis as any).summary(args), {
      url: points,
      where: 'Rank >= 100',
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(pageErrors).toEqual([]);
    expect(r.supportsExtent).toBe(true);
    const box = (from: number) => {
      const g = Array.from({ length: POINTS - from }, (_, i) => point(from + i).geometry);
      const [xs, ys] = [g.map((p) => p.x), g.map((p) => p.y)];
      return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    };
    const [xmin, ymin, xmax, ymax] = box(0);
    expect(r.all.count).toBe(POINTS);
    expect(r.all.extent).toMatchObject({ xmin, ymin, xmax, ymax, spatialReference: { wkid: 4326 } });
    const [sx0, sy0, sx1, sy1] = box(100);
    const [mx0, my0] = mercator(sx0, sy0);
    const [mx1, my1] = mercator(sx1, sy1);
    expect(r.some.count).toBe(POINTS - 100);
    for (const [got, want] of [
      [r.some.extent.xmin, mx0],
      [r.some.extent.ymin, my0],
      [r.some.extent.xmax, mx1],
      [r.some.extent.ymax, my1],
    ])
      expect(Math.abs(got - want)).toBeLessThan(1e-3);
    expect(r.none).toEqual({ count: 0, empty: true });
    expect(r.counts).toEqual([POINTS, POINTS - 100]);
    // Five calls, five requests: each extent came from returnExtentOnly, not from paging the features.
    const sent = queries.slice(before).filter((q) => q.url.pathname === `${new URL(points).pathname}/query`);
    expect(sent).toHaveLength(5);
    expect(sent.filter((q) => q.url.searchParams.get('returnExtentOnly') === 'true')).toHaveLength(3);
    expect(sent.filter((q) => q.url.searchParams.get('returnCountOnly') === 'true').length).toBeGreaterThanOrEqual(2);
    for (const q of sent) {
      expect(q.status).toBe(200);
      expect(JSON.parse(await q.text).error).toBeUndefined();
    }
  }, 120_000);

  it('draws polygons and lines through f=json and f=pbf with the centroids, generalization and quantization it asks for', async () => {
    const define = (name: string) =>
      createHostedService(t.base, owner, [
        { name: `${name}Areas`, geometryType: 'esriGeometryPolygon', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
        { name: `${name}Waves`, geometryType: 'esriGeometryPolyline', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
      ]);
    const [jsonSvc, pbfSvc] = [await define('Json'), await define('Pbf')];
    for (const svc of [jsonSvc, pbfSvc]) {
      expect(
        (await post(`${svc.serviceurl}/0`, 'addFeatures', { features: JSON.stringify(AREAS) }, owner.token)).body.addResults,
      ).toHaveLength(AREAS.length);
      expect(
        (await post(`${svc.serviceurl}/1`, 'addFeatures', { features: JSON.stringify(WAVES) }, owner.token)).body.addResults,
      ).toHaveLength(WAVES.length);
    }
    // One service as a server without PBF would describe it, so the SDK asks it for JSON.
    const jsonPath = new URL(jsonSvc.serviceurl).pathname;
    await page.route(
      (u) => u.pathname.startsWith(jsonPath) && !u.pathname.endsWith('/query'),
      async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        await route.fulfill({ response, json: body.supportedQueryFormats ? { ...body, supportedQueryFormats: 'JSON, geoJSON' } : body });
      },
    );
    const layers = [jsonSvc, pbfSvc].flatMap((svc) => [
      { url: `${svc.serviceurl}/0`, kind: 'polygon' },
      { url: `${svc.serviceurl}/1`, kind: 'polyline' },
    ]);
    const before = queries.length;
    const r: any = await page.evaluate((args) => (globalThis as any).drawShapes(args), {
      layers,
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(pageErrors).toEqual([]);
    const [jsonAreas, jsonWaves, pbfAreas, pbfWaves] = r.drawn;
    expect(r.drawn.map((d: any) => [d.pbf, d.quantization])).toEqual([
      [false, true],
      [false, true],
      [true, true],
      [true, true],
    ]);
    expect([jsonAreas.centroid, pbfAreas.centroid]).toEqual([true, true]);

    // What the SDK sent for each layer's tiles, and that every one was answered in its format without an error.
    const tiles = (url: string) =>
      queries
        .slice(before)
        .filter((q) => q.url.pathname === `${new URL(url).pathname}/query` && q.url.searchParams.get('quantizationParameters'));
    for (const [i, { url, kind }] of layers.entries()) {
      const sent = tiles(url);
      expect(sent.length).toBeGreaterThan(0);
      for (const q of sent) {
        const params = q.url.searchParams;
        expect(params.get('f')).toBe(i < 2 ? 'json' : 'pbf');
        expect(JSON.parse(params.get('quantizationParameters')!)).toMatchObject({ mode: 'view', originPosition: 'upperLeft' });
        if (kind === 'polygon') expect(params.get('returnCentroid')).toBe('true');
        if (kind === 'polyline') expect(Number(params.get('maxAllowableOffset'))).toBeGreaterThan(0);
        expect(q.status).toBe(200);
        expect(q.type).toBe(i < 2 ? 'application/json; charset=utf-8' : 'application/x-protobuf');
        if (i >= 2) continue;
        const body = JSON.parse(await q.text);
        expect(body.error).toBeUndefined();
        expect(body.transform).toMatchObject({ originPosition: 'upperLeft' });
        for (const f of body.features) {
          if (kind === 'polygon' && f.geometry) expect(Number.isInteger(f.centroid.x) && Number.isInteger(f.centroid.y)).toBe(true);
          expect(JSON.stringify(f.geometry ?? {}).match(/\d\.\d/)).toBeNull();
        }
      }
    }

    // Drawn: every polygon and line, where it was added, within a pixel (and the offset the SDK allowed for lines).
    for (const areas of [jsonAreas, pbfAreas]) {
      expect(areas.count).toBe(AREAS.length);
      const labels = areas.features.map((f: any) => f.attributes.Label).sort();
      expect(labels).toEqual(AREAS.map((a) => a.attributes.Label).sort());
      for (const f of areas.features) {
        const source = AREAS.find((a) => a.attributes.Label === f.attributes.Label)!;
        if (source.attributes.Label === 'speck') continue;
        expect(f.geometry.rings).toHaveLength(source.geometry.rings.length);
        f.geometry.rings.forEach((ring: number[][], k: number) => {
          const expected = source.geometry.rings[k].map(([x, y]) => mercator(x, y));
          expect(ring).toHaveLength(expected.length);
          ring.forEach(([x, y], v) => {
            expect(Math.abs(x - expected[v][0])).toBeLessThanOrEqual(r.resolution);
            expect(Math.abs(y - expected[v][1])).toBeLessThanOrEqual(r.resolution);
          });
        });
      }
    }
    for (const [waves, url] of [
      [jsonWaves, layers[1].url],
      [pbfWaves, layers[3].url],
    ]) {
      expect(waves.count).toBe(WAVES.length);
      const offset = Math.max(...tiles(url).map((q) => Number(q.url.searchParams.get('maxAllowableOffset'))));
      for (const f of waves.features) {
        const source = WAVES.find((w) => w.attributes.Label === f.attributes.Label)!.geometry.paths[0].map(([x, y]) => mercator(x, y));
        const [path] = f.geometry.paths;
        expect(path.length).toBeLessThan(source.length / 4);
        for (const v of path)
          expect(Math.min(...source.map((s) => Math.hypot(v[0] - s[0], v[1] - s[1])))).toBeLessThanOrEqual(r.resolution);
        for (const s of source) expect(distanceToPath(s, path)).toBeLessThanOrEqual(offset + r.resolution);
      }
    }
  }, 180_000);

  it("reads a hosted feature layer view's features and sees no hidden field", async () => {
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      {
        createParameters: JSON.stringify({ name: `view_${Date.now()}`, capabilities: 'Query' }),
        outputType: 'featureService',
        isView: 'true',
      },
      owner.token,
    );
    const source = points.split('/').slice(-3, -2)[0];
    const viewLayerDefinition = { sourceServiceName: source, sourceLayerId: 0, sourceLayerFields: [{ name: 'Name' }, { name: 'Rank' }] };
    const def = { layers: [{ name: 'Top points', viewDefinitionQuery: 'Rank >= 100', adminLayerInfo: { viewLayerDefinition } }] };
    const admin = created.body.serviceurl.replace('/rest/services/', '/rest/admin/services/');
    expect((await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify(def) }, owner.token)).body.success).toBe(true);
    const r: any = await page.evaluate((args) => (globalThis as any).readView(args), {
      url: `${created.body.serviceurl}/0`,
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(r.isView).toBe(true);
    expect(r.fields).toEqual(['OBJECTID', 'Name', 'Rank']);
    expect(r.count).toBe(POINTS - 100);
    expect(r.keys).toEqual(['Name', 'OBJECTID', 'Rank']);
    expect(r.ranks).toEqual(Array.from({ length: POINTS - 100 }, (_, i) => i + 100));
    expect(r.hidden).not.toBe('answered');
  }, 120_000);

  it("shows a coded-value field's description, not its code, in a feature's popup", async () => {
    const domain = {
      type: 'codedValue',
      name: 'StatusCodes',
      codedValues: [
        { name: 'Open for visits', code: 1 },
        { name: 'Closed for works', code: 2 },
      ],
    };
    const svc = await createHostedService(t.base, owner, [
      {
        name: 'Sites',
        geometryType: 'esriGeometryPoint',
        fields: [
          { name: 'Name', type: 'esriFieldTypeString', length: 40 },
          { name: 'Status', type: 'esriFieldTypeSmallInteger', alias: 'Site status', domain },
        ],
      },
    ]);
    const layer = `${svc.serviceurl}/0`;
    const feats = [{ attributes: { Name: 'Mill', Status: 2 }, geometry: { x: 1, y: 1 } }];
    const oid = (await post(layer, 'addFeatures', { features: JSON.stringify(feats) }, owner.token)).body.addResults[0].objectId;
    const r: any = await page.evaluate((args) => (globalThis as any).popup(args), {
      url: layer,
      objectId: oid,
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(pageErrors).toEqual([]);
    expect(r.code).toBe(2);
    expect(r.domain).toEqual(domain);
    expect(r.state).toBe('ready');
    // The title, then the fields table: each alias beside its value, the description in place of the code.
    expect(r.lines).toEqual(['Mill', 'Name\tMill', 'Site status\tClosed for works']);
  }, 120_000);

  it("lists a feature's attachments through the SDK's queryAttachments", async () => {
    const svc = await createHostedService(t.base, owner, [
      {
        name: 'Photos',
        geometryType: 'esriGeometryPoint',
        hasAttachments: true,
        fields: [{ name: 'GlobalID', type: 'esriFieldTypeGlobalID' }],
      },
    ]);
    const layer = `${svc.serviceurl}/0`;
    const added = await post(layer, 'addFeatures', { features: '[{"attributes":{},"geometry":{"x":1,"y":1}}]' }, owner.token);
    const oid = added.body.addResults[0].objectId;
    for (const [name, bytes] of [
      ['front.jpg', 'jpeg bytes'],
      ['report.pdf', 'pdf bytes'],
    ]) {
      const form = new FormData();
      form.set('f', 'json');
      form.set('token', owner.token);
      form.set('attachment', new Blob([bytes]), name);
      expect(
        ((await (await fetch(`${layer}/${oid}/addAttachment`, { method: 'POST', body: form })).json()) as any).addAttachmentResult.success,
      ).toBe(true);
    }
    const r: any = await page.evaluate((args) => (globalThis as any).attachments(args), {
      url: layer,
      objectIds: [oid],
      token: owner.token,
      server: `${t.root}/arcgis/rest/services`,
    });
    expect(pageErrors).toEqual([]);
    expect(r.supportsAttachment).toBe(true);
    expect(r.supportsQuery).toBe(true);
    expect(r.infos).toEqual([
      [
        oid,
        [
          {
            name: 'front.jpg',
            contentType: 'image/jpeg',
            size: 10,
            url: expect.stringMatching(new RegExp(`/FeatureServer/0/${oid}/attachments/\\d+`)),
          },
        ],
      ],
    ]);
  });
});

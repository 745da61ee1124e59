import { ArcGISIdentityManager } from '@esri/arcgis-rest-request';
import { exportItem } from '@esri/arcgis-rest-portal';
import { addFeatures, addToServiceDefinition, createFeatureService } from '@esri/arcgis-rest-feature-service';
import gdal from 'gdal-async';
import { INestApplicationContext } from '@nestjs/common';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, uniq } from '../support/client';
import { startWorker } from '../support/worker';
import { downloadExport } from '../support/export-download';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The export pipeline as arcgis-rest-js drives it: exportItem, getItemStatus until completed, getItemData as a file,
 * then every output opened with GDAL. A worker runs in this process against the same database and Redis.
 */
describe('export through @esri/arcgis-rest-portal 4.10.2', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let auth: ArcGISIdentityManager;
  let serviceItemId: string;
  let dir: string;
  const POINTS = 40;
  const POLYGONS = 10;

  beforeAll(async () => {
    t = await startApp();
    worker = await startWorker(t.config);
    dir = mkdtempSync(path.join(tmpdir(), 'export-compat-'));
    const pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    auth = await ArcGISIdentityManager.signIn({ username: pub.username, password: pub.password, portal: t.base });
    const created = await createFeatureService({
      item: { name: uniq('exp'), spatialReference: { wkid: 4326 } } as any,
      authentication: auth,
    });
    serviceItemId = created.serviceItemId;
    await addToServiceDefinition(created.serviceurl, {
      authentication: auth,
      layers: [
        {
          name: 'Cities',
          type: 'Feature Layer',
          geometryType: 'esriGeometryPoint',
          fields: [
            { name: 'Name', type: 'esriFieldTypeString', length: 40 },
            { name: 'Pop', type: 'esriFieldTypeInteger' },
            { name: 'Founded', type: 'esriFieldTypeDate' },
            { name: 'population_density_2020', type: 'esriFieldTypeDouble' },
          ],
        },
        {
          name: 'Parcels',
          type: 'Feature Layer',
          geometryType: 'esriGeometryPolygon',
          fields: [{ name: 'Code', type: 'esriFieldTypeString', length: 10 }],
        },
      ] as any,
    });
    const cities = Array.from({ length: POINTS }, (_, i) => ({
      attributes: { Name: `Città ${i}`, Pop: i, Founded: Date.UTC(1900 + i, 0, 1), population_density_2020: i / 3 },
      geometry: { x: i * 0.5, y: 45 + i * 0.1 },
    }));
    await addFeatures({ url: `${created.serviceurl}/0`, features: cities as any, authentication: auth });
    const parcels = Array.from({ length: POLYGONS }, (_, i) => ({
      attributes: { Code: `P${i}` },
      geometry: {
        rings: [
          [
            [i, 0],
            [i, 1],
            [i + 1, 1],
            [i + 1, 0],
            [i, 0],
          ],
        ],
      },
    }));
    await addFeatures({ url: `${created.serviceurl}/1`, features: parcels as any, authentication: auth });
  }, 60000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** exportItem → poll getItemStatus → getItemData(file) → the file on disk, as a GDAL path. */
  async function runExport(exportFormat: string, exportParameters?: any, title?: string) {
    const reply = await exportItem({ id: serviceItemId, exportFormat: exportFormat as any, exportParameters, title, authentication: auth });
    expect(reply.serviceItemId).toBe(serviceItemId);
    const out = await downloadExport(auth, reply, dir);
    expect(out.item.size).toBe(out.size);
    return { ...out, reply };
  }

  /** Every vector layer GDAL finds, through zips and folders, by layer name. */
  function layersOf(gdalPath: string): Map<string, gdal.Layer> {
    const out = new Map<string, gdal.Layer>();
    const open = (p: string) => {
      const ds = gdal.open(p);
      ds.layers.forEach((l) => {
        out.set(l.name, l);
      });
    };
    if (gdalPath.startsWith('/vsizip/')) {
      for (const entry of gdal.fs.readDir(gdalPath)) {
        // An .xlsx is itself a zip, which GDAL reads through a nested /vsizip/{...} path.
        if (/\.xlsx$/i.test(entry)) open(`/vsizip/{${gdalPath}/${entry}}`);
        else if (/\.(shp|csv|geojson|kml|fgb|gdb)$/i.test(entry)) open(`${gdalPath}/${entry}`);
      }
    } else open(gdalPath);
    return out;
  }

  const find = (layers: Map<string, gdal.Layer>, name: string) =>
    [...layers.entries()].find(([k]) => k.toLowerCase().includes(name.toLowerCase()))?.[1];

  it.each([
    ['Shapefile', 'Shapefile'],
    ['File Geodatabase', 'File Geodatabase'],
    ['GeoJson', 'GeoJson'],
    ['KML', 'KML'],
    ['Excel', 'Microsoft Excel'],
    ['GeoPackage', 'GeoPackage'],
    ['FlatGeobuf', 'FlatGeobuf'],
    ['SQLite', 'SQLite Geodatabase'],
  ])('exports both layers as %s (item type %s) with counts, fields and spatial reference intact', async (format, type) => {
    const { gdalPath, item, reply } = await runExport(format);
    expect(reply.type).toBe(type);
    expect(item.type).toBe(type);
    const layers = layersOf(gdalPath);
    const cities = find(layers, 'Cities')!;
    const parcels = find(layers, 'Parcels')!;
    expect(cities.features.count()).toBe(POINTS);
    expect(parcels.features.count()).toBe(POLYGONS);
    const names = cities.fields.getNames().map((n) => n.toLowerCase());
    expect(names).toEqual(expect.arrayContaining(['name', 'pop']));
    if (format !== 'Excel') {
      expect(
        cities.geomType === gdal.wkbPoint ||
          cities.geomType === gdal.wkbMultiPoint ||
          cities.geomType === gdal.wkbPoint25D ||
          cities.geomType === gdal.wkbUnknown,
      ).toBe(true);
      expect(cities.srs?.isSame(gdal.SpatialReference.fromEPSG(4326)) || cities.srs?.getAuthorityCode() === '4326').toBe(true);
      const f = cities.features.get(cities.features.first().fid);
      expect(f.getGeometry()).toBeTruthy();
    }
    const first = cities.features.first();
    const nameField = cities.fields.getNames().find((n) => n.toLowerCase() === 'name')!;
    expect(String(first.fields.get(nameField))).toMatch(/^Città \d+$/);
  });

  it('exports CSV with where, x/y column names and no WKT for points', async () => {
    const { gdalPath } = await runExport('CSV', { layers: [{ id: 0, where: 'Pop >= 30', xColumnName: 'lon', yColumnName: 'lat' }] });
    const layer = [...layersOf(gdalPath).values()][0];
    expect(layer.features.count()).toBe(10);
    const names = layer.fields.getNames();
    expect(names).toEqual(expect.arrayContaining(['Name', 'Pop', 'lon', 'lat']));
    expect(names).not.toContain('WKT');
    const row = layer.features.first();
    expect(Number(row.fields.get('lon'))).toBeCloseTo(Number(row.fields.get('Pop')) * 0.5, 6);
  });

  it('exports without geometry when includeGeometry is false', async () => {
    const { gdalPath } = await runExport('GeoPackage', { layers: [{ id: 0, includeGeometry: false }] });
    const layer = [...layersOf(gdalPath).values()][0];
    expect(layer.features.count()).toBe(POINTS);
    expect(layer.geomType).toBe(gdal.wkbNone);
  });

  it('reprojects to targetSR', async () => {
    const { gdalPath } = await runExport('Shapefile', { layers: [{ id: 0, where: 'Pop = 2' }], targetSR: { wkid: 102100 } });
    const layer = [...layersOf(gdalPath).values()][0];
    expect(layer.srs!.isSame(gdal.SpatialReference.fromEPSG(3857))).toBe(true);
    const p = layer.features.first().getGeometry() as gdal.Point;
    expect(p.x).toBeCloseTo(111319.49, 0);
  });

  it('keeps the shapefile code page and the mapping of truncated field names in the zip', async () => {
    const { gdalPath } = await runExport('Shapefile', { layers: [{ id: 0 }] });
    const entries = gdal.fs.readDir(gdalPath);
    expect(entries.some((e) => e.endsWith('.cpg'))).toBe(true);
    const mapping = entries.find((e) => /field/i.test(e));
    expect(mapping).toBeDefined();
    const layer = [...layersOf(gdalPath).values()][0];
    expect(layer.fields.getNames().every((n) => n.length <= 10)).toBe(true);
  });

  it('exports a Feature Collection as ArcGIS JSON', async () => {
    const { file } = await runExport('Feature Collection', { layers: [{ id: 1 }] });
    const fc = JSON.parse(readFileSync(file, 'utf8'));
    const layer = fc.layers[0];
    expect(layer.featureSet.features).toHaveLength(POLYGONS);
    expect(layer.featureSet.geometryType).toBe('esriGeometryPolygon');
    expect(layer.featureSet.features[0].geometry.rings).toBeDefined();
    expect(layer.layerDefinition.fields.map((f: { name: string }) => f.name)).toContain('Code');
  });
});

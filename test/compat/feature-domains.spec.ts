/**
 * Attribute domains through @esri/arcgis-rest-feature-service 4.10.2 and back out of exports: fields with coded-value
 * and range domains defined with addToServiceDefinition, decodeValues turning codes into descriptions, and the
 * export files read back with GDAL (gdal-async for the data, the system's ogrinfo for GeoPackage and geodatabase
 * domains, which gdal-async cannot list).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { INestApplicationContext } from '@nestjs/common';
import { ArcGISIdentityManager, IField } from '@esri/arcgis-rest-request';
import { exportItem, setItemAccess } from '@esri/arcgis-rest-portal';
import {
  addFeatures,
  addToServiceDefinition,
  createFeatureService,
  decodeValues,
  getLayer,
  queryFeatures,
} from '@esri/arcgis-rest-feature-service';
import gdal from 'gdal-async';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser, uniq } from '../support/client';
import { readPart } from '../support/openpyxl';
import { startWorker } from '../support/worker';
import { downloadExport } from '../support/export-download';

/* eslint-disable @typescript-eslint/no-explicit-any */

const run = promisify(execFile);

const STATUS = {
  type: 'codedValue',
  name: 'WellStatus',
  description: 'Where a well stands',
  codedValues: [
    { name: 'Active', code: 1 },
    { name: 'Closed, capped', code: 2 },
    { name: '=Abandoned', code: 3 },
  ],
  mergePolicy: 'esriMPTDefaultValue',
  splitPolicy: 'esriSPTDuplicate',
};
const KIND = {
  type: 'codedValue',
  name: 'WellKind',
  codedValues: [
    { name: 'Water well', code: 'W' },
    { name: 'Oil well', code: 'O' },
  ],
};
const DEPTH = { type: 'range', name: 'WellDepth', range: [0, 5000] };

const FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', alias: 'Well name', length: 40 },
  { name: 'Status', type: 'esriFieldTypeSmallInteger', alias: 'Well status', domain: STATUS },
  { name: 'Kind', type: 'esriFieldTypeString', alias: 'Kind of well', length: 1, domain: KIND },
  { name: 'Depth', type: 'esriFieldTypeDouble', alias: 'Depth (m)', domain: DEPTH },
];

/** Wells: statuses 1, 2, 3 and 9 (outside the domain, which edits accept as ArcGIS does) and one without. */
const WELLS = [
  { Name: 'North', Status: 1, Kind: 'W', Depth: 120.5 },
  { Name: 'South', Status: 2, Kind: 'O', Depth: 3000 },
  { Name: 'East', Status: 3, Kind: 'W', Depth: 7 },
  { Name: 'West', Status: 9, Kind: 'X', Depth: 9999 },
  { Name: 'Nowhere', Status: null, Kind: null, Depth: null },
];

describe('attribute domains through @esri/arcgis-rest-feature-service 4.10.2 and exports', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let auth: ArcGISIdentityManager;
  let serviceItemId: string;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    t = await startApp();
    worker = await startWorker(t.config);
    dir = mkdtempSync(path.join(tmpdir(), 'domains-compat-'));
    const pub = await createUser(t.base, await adminToken(t.base), 'org_publisher');
    auth = await ArcGISIdentityManager.signIn({ username: pub.username, password: pub.password, portal: t.base });
    const created = await createFeatureService({
      item: { name: uniq('wells'), spatialReference: { wkid: 4326 } } as any,
      authentication: auth,
    });
    serviceItemId = created.serviceItemId;
    url = created.serviceurl;
    const added = await addToServiceDefinition(url, {
      authentication: auth,
      layers: [{ name: 'Wells', type: 'Feature Layer', geometryType: 'esriGeometryPoint', fields: FIELDS }] as any,
    });
    expect(added.layers).toEqual([{ id: 0, name: 'Wells' }]);
    const features = WELLS.map((attributes, i) => ({ attributes, geometry: { x: 10 + i, y: 50 } }));
    const res = await addFeatures({ url: `${url}/0`, features: features as any, authentication: auth });
    expect(res.addResults.every((r) => r.success)).toBe(true);
    // decodeValues reads the layer without the caller's authentication (as its docs show it): a public layer.
    await setItemAccess({ id: serviceItemId, access: 'public', authentication: auth });
  }, 60000);

  afterAll(async () => {
    await worker?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('getLayer returns each domain exactly as it was given', async () => {
    const layer = await getLayer({ url: `${url}/0`, authentication: auth });
    const byName = new Map((layer.fields ?? []).map((f: IField) => [f.name, f]));
    expect(byName.get('Status')!.domain).toEqual(STATUS);
    expect(byName.get('Kind')!.domain).toEqual(KIND);
    expect(byName.get('Depth')!.domain).toEqual(DEPTH);
    expect(byName.get('Name')!.domain).toBeNull();
  });

  it('decodeValues replaces codes by descriptions, reading the layer or the reply fields, and leaves other values', async () => {
    const queryResponse = (await queryFeatures({ url: `${url}/0`, orderByFields: 'OBJECTID', authentication: auth })) as any;
    const expected = [
      ['Active', 'Water well', 120.5],
      ['Closed, capped', 'Oil well', 3000],
      ['=Abandoned', 'Water well', 7],
      [9, 'X', 9999],
      [null, null, null],
    ];
    for (const decoded of [
      await decodeValues({ url: `${url}/0`, queryResponse }),
      await decodeValues({ url: `${url}/0`, queryResponse, fields: queryResponse.fields }),
    ]) {
      expect(decoded.features.map((f: any) => [f.attributes.Status, f.attributes.Kind, f.attributes.Depth])).toEqual(expected);
    }
  });

  const runExport = async (exportFormat: string, exportParameters?: any) => {
    const reply = await exportItem({ id: serviceItemId, exportFormat: exportFormat as any, exportParameters, authentication: auth });
    return (await downloadExport(auth, reply, dir)).file;
  };

  /** A layer's rows as GDAL reads them (a CSV of one layer is a plain file): header names, then each row's values in field order. */
  function rows(gdalPath: string): { names: string[]; values: unknown[][] } {
    const ds = gdal.open(gdalPath);
    const layer = ds.layers.get(0);
    const names = layer.fields.getNames();
    const values = layer.features.map((f) => names.map((n) => f.fields.get(n)));
    ds.close();
    return { names, values };
  }

  it('CSV writes code and description columns under the aliases, escaped like any text', async () => {
    const { names, values } = rows(await runExport('CSV', { useDomainDescriptions: 'both', useFieldAliases: true }));
    expect(names).toEqual([
      'OBJECTID',
      'Well name',
      'Well status',
      'Well status_desc',
      'Kind of well',
      'Kind of well_desc',
      'Depth (m)',
      'x',
      'y',
    ]);
    const cells = values.map((v) => v.slice(1, 7).map((c) => (c === null ? '' : String(c))));
    expect(cells).toEqual([
      ['North', '1', 'Active', 'W', 'Water well', '120.5'],
      ['South', '2', 'Closed, capped', 'O', 'Oil well', '3000'],
      // A description a spreadsheet would run as a formula is written as text, as any CSV text is.
      ['East', '3', "'=Abandoned", 'W', 'Water well', '7'],
      ['West', '9', '', 'X', '', '9999'],
      ['Nowhere', '', '', '', '', ''],
    ]);
  });

  it('CSV with descriptions for one layer writes them in place of the codes, and values outside as they are', async () => {
    const { names, values } = rows(
      await runExport('CSV', { layers: [{ id: 0, useDomainDescriptions: 'description', includeGeometry: false }] }),
    );
    expect(names).toEqual(['OBJECTID', 'Name', 'Status', 'Kind', 'Depth']);
    expect(values.map((v) => [v[2], v[3]].map((c) => (c === null ? '' : String(c))))).toEqual([
      ['Active', 'Water well'],
      ['Closed, capped', 'Oil well'],
      ["'=Abandoned", 'Water well'],
      ['9', 'X'],
      ['', ''],
    ]);
  });

  it('Excel writes descriptions as text cells and values outside the domain as numbers', async () => {
    const file = await runExport('Excel', { useDomainDescriptions: true, useFieldAliases: true });
    const { names, values } = rows(file);
    expect(names).toEqual(['OBJECTID', 'Well name', 'Well status', 'Kind of well', 'Depth (m)', 'x', 'y']);
    expect(values.map((v) => v.slice(2, 4))).toEqual([
      ['Active', 'Water well'],
      ['Closed, capped', 'Oil well'],
      ['=Abandoned', 'Water well'],
      ['9', 'X'],
      [null, null],
    ]);
    // GDAL reads the mixed column as text: the sheet itself holds the outside value as a number, the rest as strings.
    const sheet = readPart(file, 'xl/worksheets/sheet1.xml');
    expect(sheet).toContain('<c r="C5"><v>9</v></c>');
    expect(sheet).toContain('<c r="C4" t="inlineStr"><is><t xml:space="preserve">=Abandoned</t></is></c>');
  });

  /** ogrinfo's summary of a layer and its listing of one domain (GDAL 3.6 has no JSON form for either). */
  async function ogrinfo(gdalPath: string, args: string[]) {
    return (await run('ogrinfo', ['-ro', ...args, gdalPath], { timeout: 60_000 })).stdout;
  }

  it.each([
    ['GeoPackage', (f: string) => f],
    ['File Geodatabase', (f: string) => `/vsizip/${f}/${gdal.fs.readDir(`/vsizip/${f}`)[0]}`],
  ])('%s carries the domains as the format defines them, and the codes', async (format, gdalPathOf) => {
    const gdalPath = gdalPathOf(await runExport(format));
    const summary = await ogrinfo(gdalPath, ['-so', '-al']);
    expect(summary).toMatch(/Status: Integer\(Int16\) \(0\.0\), domain name=WellStatus/);
    expect(summary).toMatch(/Kind: String \(1\.0\), domain name=WellKind/);
    expect(summary).toMatch(/Depth: Real \(0\.0\), domain name=WellDepth/);
    const status = await ogrinfo(gdalPath, ['-fielddomain', 'WellStatus']);
    expect(status).toContain('Type: coded');
    expect(status).toContain('Description: Where a well stands');
    // A GeoPackage has no place for the policies; a geodatabase keeps them.
    if (format === 'File Geodatabase') expect(status).toContain('Split policy: duplicate');
    expect(status).toMatch(/\n\s+1: Active\n\s+2: Closed, capped\n\s+3: =Abandoned\n/);
    // GDAL lists a GeoPackage's codes sorted, a geodatabase's as given.
    const kind = await ogrinfo(gdalPath, ['-fielddomain', 'WellKind']);
    expect(kind).toMatch(/\n\s+W: Water well\n/);
    expect(kind).toMatch(/\n\s+O: Oil well\n/);
    const depth = await ogrinfo(gdalPath, ['-fielddomain', 'WellDepth']);
    expect(depth).toContain('Type: range');
    expect(depth).toMatch(/Minimum value: 0(\.0+)?\n\s+Maximum value: 5000(\.0+)?\n/);
    const { values } = rows(gdalPath);
    expect(values.map((v) => v.slice(1, 3))).toEqual([
      [1, 'W'],
      [2, 'O'],
      [3, 'W'],
      [9, 'X'],
      [null, null],
    ]);
  });

  it('Shapefile keeps the codes and lists the domains in <layer>_domains.csv', async () => {
    const file = await runExport('Shapefile');
    const zip = `/vsizip/${file}`;
    const entries = gdal.fs.readDir(zip);
    const list = entries.find((e) => e.endsWith('_domains.csv'))!;
    expect(list).toBe('Wells_domains.csv');
    const text = gdal.open(`${zip}/${list}`);
    const layer = text.layers.get(0);
    const listed = layer.features.map((f) =>
      ['field_name', 'domain_name', 'domain_type', 'code', 'description', 'minimum', 'maximum'].map((n) => f.fields.get(n)),
    );
    expect(listed).toEqual([
      ['Status', 'WellStatus', 'codedValue', '1', 'Active', '', ''],
      ['Status', 'WellStatus', 'codedValue', '2', 'Closed, capped', '', ''],
      ['Status', 'WellStatus', 'codedValue', '3', "'=Abandoned", '', ''],
      ['Kind', 'WellKind', 'codedValue', 'W', 'Water well', '', ''],
      ['Kind', 'WellKind', 'codedValue', 'O', 'Oil well', '', ''],
      ['Depth', 'WellDepth', 'range', '', '', '0', '5000'],
    ]);
    const shp = rows(`${zip}/${entries.find((e) => e.endsWith('.shp'))}`);
    expect(shp.values.map((v) => v[shp.names.indexOf('Status')])).toEqual([1, 2, 3, 9, null]);
  });
});

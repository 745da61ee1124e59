/**
 * The publish loader against the run's real database: files of every supported type are generated in a temp dir,
 * inspected, their tables created with createTableSql (as LayersRepository.addLayers does), loaded, and checked.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as gdal from 'gdal-async';
import { Client } from 'pg';
import { gdalPgConnection } from '../../src/core/database/gdal-pg';
import { createTableSql, LayerDefinition } from '../../src/layers/layer-schema';
import { inspectSource, loadLayer, PublishAbortedError, PublishError, PublishFileType, SourceLayer } from '../../src/publish';

jest.setTimeout(120_000);

const url = () => process.env.TEST_DATABASE_URL as string;
const SCHEMA = `publish_loader_${process.pid}`;

let db: Client;
let dir: string;
let tableNo = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'publish-loader-'));
  db = new Client({ connectionString: url() });
  await db.connect();
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
});

afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.end();
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string) => path.join(dir, name);

/** A table as LayersRepository.addLayers would create it for the definition. */
async function createTable(def: LayerDefinition): Promise<string> {
  const table = `l${tableNo++}`;
  for (const sql of createTableSql(SCHEMA, table, def)) await db.query(sql);
  return table;
}

async function publish(filePath: string, type: PublishFileType, layer: SourceLayer, def: LayerDefinition = layer.definition) {
  const table = await createTable(def);
  const progress: number[] = [];
  const r = await loadLayer(
    filePath,
    type,
    layer,
    { databaseUrl: url(), schema: SCHEMA, table, srid: def.srid },
    { onProgress: (f) => progress.push(f) },
  );
  return { table, loaded: r.loaded, progress };
}

async function rows(table: string, cols = '*', order = 'objectid') {
  return (await db.query(`SELECT ${cols} FROM ${SCHEMA}.${table} ORDER BY ${order}`)).rows;
}

async function geometryInfo(table: string) {
  const r = await db.query(
    `SELECT array_agg(DISTINCT ST_GeometryType(shape)) FILTER (WHERE shape IS NOT NULL) AS types,
            array_agg(DISTINCT ST_SRID(shape)) FILTER (WHERE shape IS NOT NULL) AS srids,
            max(ST_NDims(shape)) AS dims, Find_SRID($1, $2, 'shape') AS column_srid
       FROM ${SCHEMA}.${table}`,
    [SCHEMA, table],
  );
  return r.rows[0] as { types: string[]; srids: number[]; dims: number; column_srid: number };
}

async function objectIds(table: string): Promise<number[]> {
  return (await rows(table, 'objectid')).map((r) => r.objectid);
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const fieldsOf = (def: LayerDefinition) =>
  Object.fromEntries(def.fields.map((f) => [f.name, f.length ? `${f.type}(${f.length})` : f.type]));

async function expectPublishError(p: Promise<unknown>, message: RegExp) {
  const e = await p.then(
    () => null,
    (err) => err,
  );
  expect(e).toBeInstanceOf(PublishError);
  expect(e.message).toMatch(message);
}

function zip(target: string, cwd: string, entries: string[]) {
  execFileSync('zip', ['-q', '-r', target, ...entries], { cwd });
}

function vectorFile(
  driver: string,
  filePath: string,
  layers: {
    name: string;
    srid?: number;
    type: number;
    fields: [string, string, number?][];
    features: { attrs: Record<string, unknown>; wkt?: string }[];
  }[],
) {
  const ds = gdal.drivers.get(driver).create(filePath);
  for (const l of layers) {
    const layer = ds.layers.create(l.name, l.srid ? gdal.SpatialReference.fromEPSG(l.srid) : null, l.type);
    for (const [name, type, width] of l.fields) {
      const fd = new gdal.FieldDefn(name, type);
      if (width) fd.width = width;
      layer.fields.add(fd);
    }
    for (const f of l.features) {
      const feature = new gdal.Feature(layer);
      for (const [k, v] of Object.entries(f.attrs)) feature.fields.set(k, v as never);
      if (f.wkt) feature.setGeometry(gdal.Geometry.fromWKT(f.wkt));
      layer.features.add(feature);
    }
  }
  ds.close();
}

describe('GeoJSON', () => {
  const features = [
    {
      name: 'Zürich',
      pop: 421878,
      area: 87.88,
      founded: '1850-05-01T00:00:00Z',
      oid: 7,
      shape: 'round',
      second: 'a',
      tags: ['x', 'y'],
      geom: { type: 'Point', coordinates: [8.54, 47.37] },
    },
    {
      name: 'Bern',
      pop: 134794,
      area: 51.62,
      founded: '1191-01-01T12:30:00Z',
      oid: 8,
      shape: 'square',
      second: 'b',
      tags: [],
      geom: { type: 'Point', coordinates: [7.45, 46.95, 540] },
    },
    { name: 'Nowhere', pop: null, area: null, founded: null, oid: 9, shape: null, second: null, tags: null, geom: null },
    {
      name: 'O\'Brien "quoted"',
      pop: 1,
      area: 0.5,
      founded: '2000-02-29T23:59:59Z',
      oid: 10,
      shape: 'x',
      second: 'c',
      tags: ['z'],
      geom: { type: 'Point', coordinates: [-0.1, 51.5] },
    },
  ];
  const geojson = () => ({
    type: 'FeatureCollection',
    features: features.map((f) => ({
      type: 'Feature',
      properties: {
        'City Name': f.name,
        'Pop 2020': f.pop,
        Area: f.area,
        Founded: f.founded,
        OBJECTID: f.oid,
        Shape: f.shape,
        '2nd': f.second,
        tags: f.tags,
      },
      geometry: f.geom,
    })),
  });

  it('maps fields and geometry, and loads every feature with OBJECTIDs 1..n', async () => {
    const p = file('cities.geojson');
    writeFileSync(p, JSON.stringify(geojson()));
    const [layer, ...more] = await inspectSource(p, 'geojson');
    expect(more).toEqual([]);
    expect(layer.definition).toMatchObject({
      name: 'cities',
      kind: 'Feature Layer',
      geometryType: 'esriGeometryPoint',
      srid: 4326,
      objectIdField: 'OBJECTID',
      displayField: 'City_Name',
    });
    expect(fieldsOf(layer.definition)).toEqual({
      OBJECTID: 'esriFieldTypeOID',
      City_Name: 'esriFieldTypeString(256)',
      Pop_2020: 'esriFieldTypeInteger',
      Area: 'esriFieldTypeDouble',
      Founded: 'esriFieldTypeDate',
      OBJECTID_1: 'esriFieldTypeInteger',
      Shape_1: 'esriFieldTypeString(256)',
      F2nd: 'esriFieldTypeString(256)',
      tags: 'esriFieldTypeString(256)',
    });
    expect(layer.definition.fields.find((f) => f.name === 'City_Name')?.alias).toBe('City Name');
    expect(layer.fieldMap).toContainEqual({ source: 'OBJECTID', column: 'objectid_1' });
    expect(layer.featureCount).toBe(4);
    expect(layer.warnings).toContain("Field 'Pop 2020' is published as 'Pop_2020'.");

    const { table, loaded, progress } = await publish(p, 'geojson', layer);
    expect(loaded).toBe(4);
    expect(progress[progress.length - 1]).toBe(1);
    expect(await objectIds(table)).toEqual(seq(4));
    const r = await rows(table, `objectid, city_name, pop_2020, area, founded, objectid_1, shape_1, f2nd, tags, ST_AsText(shape) AS wkt`);
    expect(r[0]).toMatchObject({
      city_name: 'Zürich',
      pop_2020: 421878,
      area: 87.88,
      objectid_1: 7,
      shape_1: 'round',
      f2nd: 'a',
      wkt: 'POINT(8.54 47.37)',
    });
    expect(JSON.parse(r[0].tags)).toEqual(['x', 'y']);
    expect((r[0].founded as Date).toISOString()).toBe('1850-05-01T00:00:00.000Z');
    expect(r[1].wkt).toBe('POINT(7.45 46.95)'); // Z dropped
    expect(r[2]).toMatchObject({ city_name: 'Nowhere', pop_2020: null, founded: null, wkt: null });
    expect(r[3]).toMatchObject({ city_name: `O'Brien "quoted"`, area: 0.5 });
    expect((r[3].founded as Date).toISOString()).toBe('2000-02-29T23:59:59.000Z');
    expect(await geometryInfo(table)).toMatchObject({ types: ['ST_Point'], srids: [4326], dims: 2, column_srid: 4326 });
  });

  it('reprojects into a table of another spatial reference', async () => {
    const p = file('cities.geojson');
    const [layer] = await inspectSource(p, 'geojson');
    const { table } = await publish(p, 'geojson', layer, { ...layer.definition, srid: 3857 });
    const r = await rows(table, 'ST_X(shape) AS x, ST_Y(shape) AS y, ST_SRID(shape) AS srid');
    expect(r[0].srid).toBe(3857);
    expect(r[0].x).toBeCloseTo(950668.45, 1);
    expect(r[0].y).toBeCloseTo(6002678.0, 0);
  });

  it('splits mixed geometry types into one layer per family and leaves collections out', async () => {
    const p = file('mixed.geojson');
    writeFileSync(
      p,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: { n: 1 }, geometry: { type: 'Point', coordinates: [1, 2] } },
          {
            type: 'Feature',
            properties: { n: 2 },
            geometry: {
              type: 'MultiPoint',
              coordinates: [
                [1, 2],
                [3, 4],
              ],
            },
          },
          {
            type: 'Feature',
            properties: { n: 3 },
            geometry: {
              type: 'LineString',
              coordinates: [
                [0, 0],
                [1, 1],
              ],
            },
          },
          {
            type: 'Feature',
            properties: { n: 4 },
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [0, 0],
                  [1, 0],
                  [1, 1],
                  [0, 0],
                ],
              ],
            },
          },
          {
            type: 'Feature',
            properties: { n: 5 },
            geometry: {
              type: 'MultiPolygon',
              coordinates: [
                [
                  [
                    [5, 5],
                    [6, 5],
                    [6, 6],
                    [5, 5],
                  ],
                ],
              ],
            },
          },
          {
            type: 'Feature',
            properties: { n: 6 },
            geometry: { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] },
          },
          { type: 'Feature', properties: { n: 7 }, geometry: null },
        ],
      }),
    );
    const layers = await inspectSource(p, 'geojson');
    expect(layers.map((l) => [l.definition.name, l.definition.geometryType, l.featureCount])).toEqual([
      ['mixed (points)', 'esriGeometryMultipoint', 3],
      ['mixed (lines)', 'esriGeometryPolyline', 1],
      ['mixed (polygons)', 'esriGeometryPolygon', 2],
    ]);
    expect(layers[0].warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/1 feature\(s\) .* GEOMETRYCOLLECTION .* left out/),
        expect.stringMatching(/published as 3 layers/),
      ]),
    );
    const loaded: Record<string, number[]> = {};
    for (const l of layers) {
      const { table } = await publish(p, 'geojson', l);
      loaded[l.definition.name] = (await rows(table, 'n')).map((r) => r.n);
      const g = await geometryInfo(table);
      expect(g.types).toEqual([
        { 'mixed (points)': 'ST_MultiPoint', 'mixed (lines)': 'ST_MultiLineString', 'mixed (polygons)': 'ST_MultiPolygon' }[
          l.definition.name
        ],
      ]);
      expect(await objectIds(table)).toEqual(seq(l.featureCount));
    }
    expect(loaded).toEqual({ 'mixed (points)': [1, 2, 7], 'mixed (lines)': [3], 'mixed (polygons)': [4, 5] });
  });

  it('rejects GeoJSON it cannot publish', async () => {
    writeFileSync(file('empty.geojson'), '');
    await expectPublishError(inspectSource(file('empty.geojson'), 'geojson'), /^The file is empty\.$/);
    writeFileSync(file('nofeatures.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [] }));
    await expectPublishError(inspectSource(file('nofeatures.geojson'), 'geojson'), /contains no features/);
    writeFileSync(file('notgeo.geojson'), JSON.stringify({ hello: 'world' }));
    await expectPublishError(inspectSource(file('notgeo.geojson'), 'geojson'), /could not be read as GeoJSON/);
    writeFileSync(file('broken.geojson'), '{"type":"FeatureCollection","features":[{"type":"Feature",');
    await expectPublishError(inspectSource(file('broken.geojson'), 'geojson'), /could not be read as GeoJSON/);
    const gc = { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] };
    writeFileSync(
      file('collections.geojson'),
      JSON.stringify({ type: 'FeatureCollection', features: [1, 2].map((n) => ({ type: 'Feature', properties: { n }, geometry: gc })) }),
    );
    await expectPublishError(
      inspectSource(file('collections.geojson'), 'geojson'),
      /holds (only )?GEOMETRYCOLLECTION geometries, which cannot be published/,
    );
    await expectPublishError(inspectSource(file('missing.geojson'), 'geojson'), /could not be found/);
  });
});

describe('CSV', () => {
  const csv = [
    'id,Name,Lon,Lat,elev,observed,note',
    '1,Alpha,8.5,47.3,408.5,2024-03-01 10:00:00,',
    '2,"Beta, with comma",7.4,46.9,,2024-03-02 11:30:00,"a ""quoted"" note"',
    '3,Gamma,-0.12,51.5,11,,x',
  ].join('\n');

  it('detects lon/lat columns and types from every row, and loads text values into typed columns', async () => {
    const p = file('stations.csv');
    writeFileSync(p, `${csv}\n`);
    const [layer] = await inspectSource(p, 'csv');
    expect(layer.csv).toEqual({ xField: 'Lon', yField: 'Lat' });
    expect(layer.definition).toMatchObject({
      name: 'stations',
      kind: 'Feature Layer',
      geometryType: 'esriGeometryPoint',
      srid: 4326,
      displayField: 'Name',
    });
    expect(fieldsOf(layer.definition)).toEqual({
      OBJECTID: 'esriFieldTypeOID',
      id: 'esriFieldTypeInteger',
      Name: 'esriFieldTypeString(256)',
      elev: 'esriFieldTypeDouble',
      observed: 'esriFieldTypeDate',
      note: 'esriFieldTypeString(256)',
    });
    expect(layer.sourceHasSrs).toBe(false);
    const { table, loaded } = await publish(p, 'csv', layer);
    expect(loaded).toBe(3);
    expect(await objectIds(table)).toEqual(seq(3));
    const r = await rows(table, 'id, name, elev, observed, note, ST_AsText(shape) AS wkt');
    expect(r[0]).toMatchObject({ id: 1, name: 'Alpha', elev: 408.5, note: null, wkt: 'POINT(8.5 47.3)' });
    // A datetime without zone is taken as UTC, whatever the server's zone.
    expect((r[0].observed as Date).toISOString()).toBe('2024-03-01T10:00:00.000Z');
    expect(r[1]).toMatchObject({ name: 'Beta, with comma', elev: null, note: 'a "quoted" note' });
    expect(r[2]).toMatchObject({ observed: null, wkt: 'POINT(-0.12 51.5)' });
    expect(await geometryInfo(table)).toMatchObject({ types: ['ST_Point'], srids: [4326] });
  });

  it('uses named columns and a given srid, and reads a type change after the first megabyte', async () => {
    const p = file('projected.csv');
    const lines = ['Easting;Northing;code;label'];
    // 40,000 integer codes (> 1 MB of rows) and then one that is text: the column must become a string.
    for (let i = 0; i < 40_000; i++) lines.push(`${100000 + i};${200000 + i};${i};row number ${i} of the projected sample`);
    lines.push('1;2;N/A;last');
    writeFileSync(p, lines.join('\n'));
    await expectPublishError(inspectSource(p, 'csv'), /no coordinate columns.*'Easting', 'Northing'/);
    await expectPublishError(inspectSource(p, 'csv', { csv: { xField: 'east', yField: 'Northing' } }), /no column named 'east'/);
    const [layer] = await inspectSource(p, 'csv', { csv: { xField: 'easting', yField: 'NORTHING', srid: 3857 } });
    expect(layer.definition.srid).toBe(3857);
    expect(layer.featureCount).toBe(40_001);
    expect(fieldsOf(layer.definition)).toMatchObject({ code: 'esriFieldTypeString(256)', label: 'esriFieldTypeString(256)' });
    const { table, loaded } = await publish(p, 'csv', layer);
    expect(loaded).toBe(40_001);
    const last = await db.query(
      `SELECT code, ST_AsText(shape) AS wkt, ST_SRID(shape) AS srid FROM ${SCHEMA}.${table} WHERE objectid IN (1, 40001) ORDER BY objectid`,
    );
    expect(last.rows).toEqual([
      { code: '0', wkt: 'POINT(100000 200000)', srid: 3857 },
      { code: 'N/A', wkt: 'POINT(1 2)', srid: 3857 },
    ]);
  });

  it('rejects CSV without coordinates', async () => {
    writeFileSync(file('nocoords.csv'), 'name,city\na,b\n');
    await expectPublishError(inspectSource(file('nocoords.csv'), 'csv'), /no coordinate columns.*'name', 'city'/);
    writeFileSync(file('empty.csv'), '');
    await expectPublishError(inspectSource(file('empty.csv'), 'csv'), /empty/);
    writeFileSync(file('onlyx.csv'), 'name,x\na,1\n');
    await expectPublishError(inspectSource(file('onlyx.csv'), 'csv', { csv: { xField: 'x' } }), /both the x .* and the y/);
  });
});

describe('zipped shapefile', () => {
  function writeShapefile(folder: string, name: string, srid: number | null, features: { attrs: Record<string, unknown>; wkt: string }[]) {
    mkdirSync(folder, { recursive: true });
    vectorFile('ESRI Shapefile', path.join(folder, `${name}.shp`), [
      {
        name,
        srid: srid ?? undefined,
        type: gdal.wkbPolygon,
        fields: [
          ['NAME', gdal.OFTString, 20],
          ['POP', gdal.OFTInteger64, 12],
          ['AREA_KM2', gdal.OFTReal],
          ['SURVEYED', gdal.OFTDate],
        ],
        features,
      },
    ]);
  }

  it('reads shapefiles from sub-folders of the zip, keeps declared widths and promotes polygons', async () => {
    const src = file('shp-src');
    writeShapefile(path.join(src, 'data'), 'parcels', 3857, [
      { attrs: { NAME: 'one', POP: 5000000000, AREA_KM2: 1.5, SURVEYED: '2020-06-15' }, wkt: 'POLYGON((0 0,1000 0,1000 1000,0 0))' },
      { attrs: { NAME: 'two', POP: 7, AREA_KM2: 2.25 }, wkt: 'MULTIPOLYGON(((0 0,10 0,10 10,0 0)),((20 20,30 20,30 30,20 20)))' },
    ]);
    writeShapefile(path.join(src, 'other'), 'noprj', null, [{ attrs: { NAME: 'x' }, wkt: 'POLYGON((0 0,1 0,1 1,0 0))' }]);
    rmSync(path.join(src, 'other', 'noprj.prj'), { force: true });
    const z = file('parcels.zip');
    zip(z, src, ['data', 'other']);
    const layers = await inspectSource(z, 'shapefile');
    expect(layers.map((l) => [l.member, l.definition.name, l.definition.srid])).toEqual([
      ['data/parcels.shp', 'parcels', 3857],
      ['other/noprj.shp', 'noprj', 4326],
    ]);
    const [parcels, noprj] = layers;
    expect(noprj.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/no \.prj file/)]));
    expect(parcels.definition.geometryType).toBe('esriGeometryPolygon');
    expect(fieldsOf(parcels.definition)).toEqual({
      OBJECTID: 'esriFieldTypeOID',
      NAME: 'esriFieldTypeString(20)',
      POP: 'esriFieldTypeBigInteger',
      AREA_KM2: 'esriFieldTypeDouble',
      SURVEYED: 'esriFieldTypeDate',
    });
    const { table, loaded } = await publish(z, 'shapefile', parcels);
    expect(loaded).toBe(2);
    expect(await objectIds(table)).toEqual(seq(2));
    const r = await rows(table, 'name, pop, area_km2, surveyed, ST_NumGeometries(shape) AS parts');
    expect(r[0]).toMatchObject({ name: 'one', pop: '5000000000', area_km2: 1.5, parts: 1 });
    expect((r[0].surveyed as Date).toISOString()).toBe('2020-06-15T00:00:00.000Z');
    expect(r[1]).toMatchObject({ name: 'two', pop: '7', surveyed: null, parts: 2 });
    expect(await geometryInfo(table)).toMatchObject({ types: ['ST_MultiPolygon'], srids: [3857] });

    // The same layer into a WGS 84 table: projected on load.
    const wgs = await publish(z, 'shapefile', parcels, { ...parcels.definition, srid: 4326 });
    const x = await db.query(`SELECT ST_XMax(shape) AS x, ST_SRID(shape) AS srid FROM ${SCHEMA}.${wgs.table} WHERE objectid = 1`);
    expect(x.rows[0].srid).toBe(4326);
    expect(x.rows[0].x).toBeCloseTo(0.008983, 5);
  });

  it('rejects zips it cannot publish', async () => {
    writeFileSync(file('corrupt.zip'), Buffer.from('PK\u0003\u0004 this is not really a zip archive'));
    await expectPublishError(inspectSource(file('corrupt.zip'), 'shapefile'), /not a valid zip archive/);
    writeFileSync(file('empty.zip'), '');
    await expectPublishError(inspectSource(file('empty.zip'), 'shapefile'), /empty/);
    const noshp = file('noshp');
    mkdirSync(noshp);
    writeFileSync(path.join(noshp, 'readme.txt'), 'hello');
    zip(file('noshp.zip'), noshp, ['readme.txt']);
    await expectPublishError(inspectSource(file('noshp.zip'), 'shapefile'), /contains no shapefile/);
    const partial = file('partial');
    writeShapefile(partial, 'p', 4326, [{ attrs: { NAME: 'x' }, wkt: 'POLYGON((0 0,1 0,1 1,0 0))' }]);
    zip(file('partial.zip'), partial, ['p.shp', 'p.shx', 'p.prj']);
    await expectPublishError(inspectSource(file('partial.zip'), 'shapefile'), /'p\.shp' is incomplete: its \.dbf file is missing/);
  });
});

describe('GeoPackage', () => {
  it('publishes every layer: lines, curves linearised, and attribute tables', async () => {
    const p = file('city.gpkg');
    const long = 'x'.repeat(300);
    vectorFile('GPKG', p, [
      {
        name: 'roads',
        srid: 4326,
        type: gdal.wkbLineString,
        fields: [
          ['label', gdal.OFTString],
          ['code', gdal.OFTString, 8],
          ['lanes', gdal.OFTInteger],
        ],
        features: [
          { attrs: { label: 'Main St', code: 'A1', lanes: 2 }, wkt: 'LINESTRING(0 0,1 1)' },
          { attrs: { label: long, code: 'B2', lanes: 4 }, wkt: 'MULTILINESTRING((0 0,1 1),(2 2,3 3))' },
        ],
      },
      {
        name: 'arcs',
        srid: 4326,
        type: gdal.wkbCircularString,
        fields: [['n', gdal.OFTInteger]],
        features: [{ attrs: { n: 1 }, wkt: 'CIRCULARSTRING(0 0,1 1,2 0)' }],
      },
      {
        name: 'inspections',
        type: gdal.wkbNone,
        fields: [
          ['road', gdal.OFTString],
          ['when', gdal.OFTDateTime],
          ['score', gdal.OFTReal],
        ],
        features: [{ attrs: { road: 'Main St', when: '2024-05-01T08:00:00Z', score: 3.5 } }, { attrs: { road: 'Side St', score: 4 } }],
      },
    ]);
    const layers = await inspectSource(p, 'geopackage');
    const byName = Object.fromEntries(layers.map((l) => [l.definition.name, l]));
    expect(Object.keys(byName).sort()).toEqual(['arcs', 'inspections', 'roads']);
    expect(fieldsOf(byName.roads.definition)).toEqual({
      OBJECTID: 'esriFieldTypeOID',
      label: 'esriFieldTypeString(512)',
      code: 'esriFieldTypeString(8)',
      lanes: 'esriFieldTypeInteger',
    });
    expect(byName.arcs.geometry).toEqual({ promoteToMulti: true, linearize: true, where: null });
    expect(byName.inspections.definition).toMatchObject({ kind: 'Table', geometryType: null });
    expect(byName.inspections.geometry).toBeNull();

    const roads = await publish(p, 'geopackage', byName.roads);
    expect(roads.loaded).toBe(2);
    expect(await rows(roads.table, 'label, code, lanes, ST_NumGeometries(shape) AS parts')).toEqual([
      { label: 'Main St', code: 'A1', lanes: 2, parts: 1 },
      { label: long, code: 'B2', lanes: 4, parts: 2 },
    ]);
    expect(await geometryInfo(roads.table)).toMatchObject({ types: ['ST_MultiLineString'], srids: [4326] });

    const arcs = await publish(p, 'geopackage', byName.arcs);
    const a = await db.query(`SELECT ST_GeometryType(shape) AS t, ST_NPoints(shape) > 3 AS dense FROM ${SCHEMA}.${arcs.table}`);
    expect(a.rows).toEqual([{ t: 'ST_MultiLineString', dense: true }]);

    const insp = await publish(p, 'geopackage', byName.inspections);
    expect(insp.loaded).toBe(2);
    const r = await rows(insp.table, 'objectid, road, "when", score');
    expect(r.map((x) => x.objectid)).toEqual([1, 2]);
    expect((r[0].when as Date).toISOString()).toBe('2024-05-01T08:00:00.000Z');
    expect(r[1]).toMatchObject({ road: 'Side St', when: null, score: 4 });
  });

  it('rejects files that are not GeoPackages', async () => {
    writeFileSync(file('fake.gpkg'), 'not sqlite at all');
    await expectPublishError(inspectSource(file('fake.gpkg'), 'geopackage'), /could not be read as GeoPackage/);
    writeFileSync(file('empty.gpkg'), '');
    await expectPublishError(inspectSource(file('empty.gpkg'), 'geopackage'), /empty/);
    await expectPublishError(inspectSource(file('city.gpkg'), 'geopackage', { maxLayers: 2 }), /has 3 layers; at most 2/);
  });
});

describe('loading', () => {
  const big = () => file('big.csv');
  const N = 300_000;

  beforeAll(async () => {
    const out = createWriteStream(big());
    out.write('name,value,lon,lat\n');
    for (let i = 0; i < N; i++) {
      if (!out.write(`p${i},${i * 0.5},${(i % 360) - 180 + 0.5},${(i % 170) - 85 + 0.25}\n`))
        await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((r) => out.end(() => r()));
  });

  it('reports coarse, increasing progress ending at 1, and accepts a GDAL PG: connection string', async () => {
    const [layer] = await inspectSource(big(), 'csv');
    expect(layer.featureCount).toBe(N);
    const table = await createTable(layer.definition);
    const progress: number[] = [];
    const r = await loadLayer(
      big(),
      'csv',
      layer,
      { pg: gdalPgConnection(url()), schema: SCHEMA, table },
      { onProgress: (f) => progress.push(f), progressIntervalMs: 50 },
    );
    expect(r.loaded).toBe(N);
    expect(progress[0]).toBe(0);
    expect(progress[progress.length - 1]).toBe(1);
    expect(progress.length).toBeLessThan(200);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1]);
    // the GiST index is back
    const idx = await db.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2`, [SCHEMA, table]);
    expect(idx.rows.map((x) => x.indexdef).join(' ')).toMatch(/USING gist \(shape\)/);
  });

  it('refuses a non-empty table unless asked to replace, and restarts OBJECTIDs', async () => {
    const p = file('small.csv');
    writeFileSync(p, 'name,lat,lon\na,1,2\nb,3,4\n');
    const [layer] = await inspectSource(p, 'csv');
    const table = await createTable(layer.definition);
    const target = { databaseUrl: url(), schema: SCHEMA, table };
    await loadLayer(p, 'csv', layer, target);
    await expect(loadLayer(p, 'csv', layer, target)).rejects.toThrow(/already holds features/);
    const r = await loadLayer(p, 'csv', layer, target, { replace: true });
    expect(r.loaded).toBe(2);
    expect(await objectIds(table)).toEqual([1, 2]);
    expect(await rows(table, 'name, ST_AsText(shape) AS wkt')).toEqual([
      { name: 'a', wkt: 'POINT(2 1)' },
      { name: 'b', wkt: 'POINT(4 3)' },
    ]);
  });

  it('cancels on abort: nothing is committed, indexes are restored, and a retry numbers from 1', async () => {
    const [layer] = await inspectSource(big(), 'csv');
    const table = await createTable(layer.definition);
    const target = { databaseUrl: url(), schema: SCHEMA, table };
    const ac = new AbortController();
    let started = false;
    const p = loadLayer(big(), 'csv', layer, target, {
      signal: ac.signal,
      progressIntervalMs: 20,
      onProgress: (f) => {
        if (f > 0 && !started) {
          started = true;
          ac.abort();
        }
      },
    });
    await expect(p).rejects.toBeInstanceOf(PublishAbortedError);
    expect(started).toBe(true);
    expect((await db.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.${table}`)).rows[0].n).toBe(0);
    const idx = await db.query(
      `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexdef LIKE '%gist%'`,
      [SCHEMA, table],
    );
    expect(idx.rows[0].n).toBe(1);
    const again = await loadLayer(big(), 'csv', layer, target);
    expect(again.loaded).toBe(N);
    const ids = await db.query(`SELECT min(objectid) AS lo, max(objectid) AS hi FROM ${SCHEMA}.${table}`);
    expect(ids.rows[0]).toEqual({ lo: 1, hi: N });
    // An already-aborted signal fails before touching anything.
    await expect(loadLayer(big(), 'csv', layer, target, { signal: AbortSignal.abort(), replace: true })).rejects.toBeInstanceOf(
      PublishAbortedError,
    );
  });

  it('fails clearly when the table does not match the source layer', async () => {
    const p = file('small.csv');
    const [layer] = await inspectSource(p, 'csv');
    const extra = {
      ...layer.definition,
      fields: [
        ...layer.definition.fields,
        { name: 'extra', type: 'esriFieldTypeInteger', alias: 'extra', column: 'extra', nullable: true, editable: true } as const,
      ],
    };
    const table = await createTable(extra);
    await expect(loadLayer(p, 'csv', layer, { databaseUrl: url(), schema: SCHEMA, table })).rejects.toThrow(
      /columns no source field maps to: extra/,
    );
    await expect(loadLayer(p, 'csv', layer, { databaseUrl: url(), schema: SCHEMA, table: 'missing' })).rejects.toThrow(/does not exist/);
  });
});

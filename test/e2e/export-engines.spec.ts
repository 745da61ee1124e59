/**
 * The streaming writers against GDAL's: the same layers exported through both engines (CSV, GeoJSON and Excel's
 * sheets by PostgreSQL's COPY; engine 'gdal' is what the service wrote before), both files read back with GDAL and
 * compared feature by feature. Excel is also read by openpyxl.
 *
 * Known, intended differences (each allowed for below where it shows):
 * - CSV doubles and WKT: the shortest exact form, where GDAL rounds to 15 significant digits;
 * - GeoJSON doubles: the shortest exact form, where GDAL rounds away some trailing digits (0.30000000000000004 → 0.3);
 * - Excel numbers: exact, where GDAL wrote 16 significant digits; a carriage return in text is kept, where GDAL's
 *   came back as a line feed.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as gdal from 'gdal-async';
import { Client } from 'pg';
import { gdalPgConnection } from '../../src/core/database/gdal-pg';
import { ExportFormat, ExportJob, ExportLayerSource, ExportProgress, ExportWriteError, writeExport } from '../../src/export/writer';
import { writeWorkbook } from '../../src/export/writer/xlsx/xlsx-workbook';
import { renderWhereSql } from '../../src/where/compile';
import { Cell, readPart, readWorkbook } from '../support/openpyxl';
import { exportLayer, layerField } from '../support/layer-field';
import { waitFor } from '../support/wait-for';

const SCHEMA = `svc_exportengines_${process.pid}`;
const field = layerField;
const ATTRIBUTES = [
  field('OBJECTID', 'esriFieldTypeOID'),
  field('Name', 'esriFieldTypeString', 60),
  field('Small', 'esriFieldTypeSmallInteger'),
  field('Count', 'esriFieldTypeInteger'),
  field('Big', 'esriFieldTypeBigInteger'),
  field('Ratio', 'esriFieldTypeSingle'),
  field('Area', 'esriFieldTypeDouble'),
  field('Founded', 'esriFieldTypeDate'),
  field('Ref', 'esriFieldTypeGUID'),
];

let db: Client;
let pg: string;
const dirs: string[] = [];

const layer = (table: string, geometryType: ExportLayerSource['geometryType'], over: Partial<ExportLayerSource> = {}) =>
  exportLayer(
    SCHEMA,
    table,
    geometryType,
    table === 'pts' || table === 'many' ? ATTRIBUTES : [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString', 20)],
    { name: table === 'pts' ? 'Städte' : table, ...over },
  );

const huge = () =>
  layer('huge', 'esriGeometryPoint', { fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Name', 'esriFieldTypeString', 20)] });

/**
 * The export through GDAL and through the format's streaming engine. GDAL writes CSV text as it is stored, so the
 * streamed CSV is written so too (escapeFormulas: false) unless `streamedEscapes`: the escape is compared on its own.
 */
async function both(format: ExportFormat, layers: ExportLayerSource[], extra: Partial<ExportJob> = {}, streamedEscapes = false) {
  const out: string[] = [];
  for (const engine of ['gdal', 'auto'] as const) {
    const workDir = await mkdtemp(join(tmpdir(), `export-engines-${engine}-`));
    dirs.push(workDir);
    const escapeFormulas = format === 'csv' ? engine === 'auto' && streamedEscapes : undefined;
    out.push((await writeExport({ format, layers, pg, workDir, baseName: 'Both', engine, escapeFormulas, ...extra })).path);
  }
  return { gdalPath: out[0], streamed: out[1] };
}

/** Geometry as nested coordinate arrays (GeoJSON), for comparing within a tolerance. */
function coordinates(g: gdal.Geometry | null): unknown {
  return g ? (JSON.parse(g.toJSON()) as { coordinates: unknown }).coordinates : null;
}

/** Equal, or numbers (nested in arrays alike) within `relative`. */
function close(a: unknown, b: unknown, relative: number): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => close(x, b[i], relative));
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= relative * Math.max(Math.abs(a), 1);
  return JSON.stringify(a) === JSON.stringify(b);
}

interface Compare {
  /** Relative tolerance for coordinates (0: identical). */
  coordinates?: number;
  /** Relative tolerance for real fields (0: identical). */
  reals?: number;
  /** Fields not compared. */
  skip?: string[];
  /** Text fields holding numbers, compared as numbers within `reals` (GDAL reads every CSV field as text). */
  numeric?: string[];
}

/**
 * Every layer of a, feature by feature, in b: names, field names and types, values, geometries. Returns the
 * number of features compared; the first differences found fail the test.
 */
function expectSameLayers(a: gdal.Dataset, b: gdal.Dataset, c: Compare = {}): number {
  expect(b.layers.map((l) => l.name)).toEqual(a.layers.map((l) => l.name));
  let compared = 0;
  const differences: unknown[] = [];
  a.layers.forEach((la) => {
    const lb = b.layers.get(la.name);
    expect(lb.fields.map((f) => [f.name, f.type])).toEqual(la.fields.map((f) => [f.name, f.type]));
    expect(lb.geomType).toBe(la.geomType);
    expect(lb.features.count()).toBe(la.features.count());
    const reals = new Set(
      la.fields
        .map((f) => f)
        .filter((f) => f.type === gdal.OFTReal)
        .map((f) => f.name),
    );
    const fa = la.features;
    const fb = lb.features;
    for (let x = fa.first(), y = fb.first(); x && y; x = fa.next(), y = fb.next()) {
      const va = x.fields.toObject();
      const vb = y.fields.toObject();
      for (const k of Object.keys(va)) {
        if (c.skip?.includes(k)) continue;
        const asNumber = (v: unknown) => (typeof v === 'string' && v !== '' ? Number(v) : v);
        const same = reals.has(k)
          ? close(va[k], vb[k], c.reals ?? 0)
          : c.numeric?.includes(k)
            ? close(asNumber(va[k]), asNumber(vb[k]), c.reals ?? 0)
            : JSON.stringify(va[k]) === JSON.stringify(vb[k]);
        if (!same) differences.push({ layer: la.name, feature: compared, field: k, gdal: va[k], streamed: vb[k] });
      }
      const [ga, gb] = [coordinates(x.getGeometry()), coordinates(y.getGeometry())];
      if (!close(ga, gb, c.coordinates ?? 0)) differences.push({ layer: la.name, feature: compared, gdal: ga, streamed: gb });
      compared++;
    }
  });
  expect(differences.slice(0, 5)).toEqual([]);
  return compared;
}

const open = (path: string) => gdal.open(path.endsWith('.zip') ? `/vsizip/${path}` : path);
/** A zip of per-layer files: each file, opened on its own. */
function openEach(zipPath: string): gdal.Dataset[] {
  return gdal.fs
    .readDir(`/vsizip/${zipPath}`)
    .sort()
    .map((e) => gdal.open(`/vsizip/${zipPath}/${e}`));
}

beforeAll(async () => {
  db = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
  const attributes = `objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name varchar(60), small smallint, count integer, big bigint,
    ratio real, area double precision, founded timestamptz, ref uuid`;
  await db.query(`CREATE TABLE ${SCHEMA}.pts (${attributes}, shape geometry(Point, 4326))`);
  // Text CSV must quote, text JSON must escape, nulls everywhere, dates with and without milliseconds.
  await db.query(`INSERT INTO ${SCHEMA}.pts (name, small, count, big, ratio, area, founded, ref, shape) VALUES
    ('plain', 1, 10, 9007199254740993, 1.1, 1.1, '2020-01-02 03:04:05+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'SRID=4326;POINT(-9.89 40.11)'),
    ('comma, "quote"', -2, -10, -1, 0.9975278, 3.6666666666666665, '2020-01-02 13:04:05.123+00', NULL, 'SRID=4326;POINT(0.1 0.2)'),
    (E'semi;colon\\ttab', NULL, NULL, NULL, 16777216, 1e20, '1999-12-31 23:59:59.999+00', NULL, 'SRID=4326;POINT(179.9999999999 -89.123456789012345)'),
    (E'line\\nbreak\\r', 0, 0, 0, 0, 0, '0999-01-01 00:00:00+00', NULL, NULL),
    ('Städte 中文 ✓', 5, 5, 5, 3.4028235e38, 1e-5, '2020-06-01 00:00:00.5+00', NULL, 'SRID=4326;POINT(1 2)'),
    (' lead and trail ', 5, 5, 5, 1e-7, 123456789012345678, NULL, NULL, 'SRID=4326;POINT(1e-7 2.5)'),
    ('', 5, 5, 5, 100, 100, '2020-01-01 00:00:00+00', NULL, 'SRID=4326;POINT(-0.0000001 0.00001)'),
    (NULL, 5, 5, 5, 2.5, 2, '2020-01-01 09:00:00+00', NULL, 'SRID=4326;POINT(10 20)'),
    ('=1+1', 5, 5, 5, -1.5, 12345.678901234567, '2020-01-01 09:00:00.001+00', NULL, 'SRID=4326;POINT(10.5 -20.25)'),
    (E'back\\\\slash / slash', 5, 5, 5, 1234567, 999999999999999.9, '2020-01-01 09:00:00+00', NULL, 'SRID=4326;POINT(-179.5 89.5)'),
    ('semicolon; alone', 6, 6, 6, 1, 1, NULL, NULL, 'SRID=4326;POINT(3 4)'),
    (E'tab\\talone', 6, 6, 6, 1, 1, NULL, NULL, 'SRID=4326;POINT(3 4)'),
    (E'carriage\\ralone', 6, 6, 6, 1, 1, NULL, NULL, 'SRID=4326;POINT(3 4)')`);
  await db.query(`INSERT INTO ${SCHEMA}.pts (name, small, count, big, ratio, area, founded, shape)
    SELECT 'Städte ' || i, i % 100, i * 7, i::bigint * 100000007, i / 7.0, i / 3.0, timestamptz '2020-01-01 23:30:00+00' + i * interval '1 hour 1.25 second',
           ST_SetSRID(ST_MakePoint(-10 + i * 0.01, 40 + i * 0.001), 4326) FROM generate_series(1, 290) i`);
  // Microseconds go GDAL's way (seconds as a float, 59.9996 s printed as 60.000): near whole seconds, both sides of
  // a rounding tie (sixty-fourths of a second are exact ties at the fourth decimal) and arbitrary fractions.
  await db.query(`INSERT INTO ${SCHEMA}.pts (name, founded)
    SELECT 'µs ' || i, timestamptz '2020-03-04 05:06:59.9990+00' + i * interval '37 microseconds' FROM generate_series(0, 40) i
    UNION ALL SELECT 'tie ' || i, timestamptz '2020-03-04 05:06:00+00' + (i / 64.0) * interval '1 second' FROM generate_series(1, 130) i
    UNION ALL SELECT 'frac ' || i, timestamptz '2020-03-04 05:06:07+00' + (i * 7919 % 1000000) * interval '1 microsecond' FROM generate_series(1, 60) i
    UNION ALL SELECT 'near half ' || k || ' ' || w, timestamptz '2021-07-20 20:17:41+00' + (k * 1000 + w) * interval '1 microsecond'
      FROM generate_series(0, 999, 333) k, generate_series(485, 515) w
    UNION ALL SELECT 'near minute ' || w, timestamptz '2020-03-04 05:06:59+00' + w * interval '1 microsecond' FROM generate_series(999480, 999999, 7) w`);
  await db.query(
    `CREATE TABLE ${SCHEMA}.polys (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label varchar(20), shape geometry(MultiPolygon, 4326))`,
  );
  // Holes, several parts, integral coordinates, no geometry.
  await db.query(`INSERT INTO ${SCHEMA}.polys (label, shape)
    SELECT 'p' || i, ST_Multi(ST_Difference(ST_Buffer(ST_SetSRID(ST_MakePoint(i * 0.1, 10), 4326), 0.04, 8), ST_Buffer(ST_SetSRID(ST_MakePoint(i * 0.1, 10), 4326), 0.01, 4)))
    FROM generate_series(1, 60) i`);
  await db.query(`INSERT INTO ${SCHEMA}.polys (label, shape) VALUES ('none', NULL), ('square', 'SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)))'),
    ('two', 'SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((2 2,3 2,3 3,2 3,2 2),(2.2 2.2,2.2 2.8,2.8 2.8,2.2 2.2)))')`);
  await db.query(
    `CREATE TABLE ${SCHEMA}.lines (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label varchar(20), shape geometry(MultiLineString, 4326))`,
  );
  await db.query(`INSERT INTO ${SCHEMA}.lines (label, shape) VALUES ('one', 'SRID=4326;MULTILINESTRING((0 0,1 1.5))'),
    ('two', 'SRID=4326;MULTILINESTRING((0 0,1 1),(2 2,3.25 3))'), ('none', NULL)`);
  // Enough rows for the COPY writer to split the layer over parallel sessions.
  await db.query(`CREATE TABLE ${SCHEMA}.many (${attributes}, shape geometry(Point, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.many (name, small, count, big, ratio, area, founded, shape)
    SELECT 'n ' || i, i % 100, i, i, (i / 3.0)::real, i / 7.0, timestamptz '2021-01-01' + i * interval '1.5 second', ST_SetSRID(ST_MakePoint(i % 360 - 180, (i % 170) - 85 + 0.5), 4326)
    FROM generate_series(1, 60000) i`);
  // The same rows with a gap of 20,000 OIDs, which leaves ranges without rows.
  await db.query(`CREATE TABLE ${SCHEMA}.gappy AS SELECT * FROM ${SCHEMA}.many`);
  await db.query(`UPDATE ${SCHEMA}.gappy SET objectid = objectid + 20000 WHERE objectid > 20000`);
  await db.query(`ALTER TABLE ${SCHEMA}.gappy ADD PRIMARY KEY (objectid)`);
  // The COPY writer splits by the planner's estimate: without statistics it took the table for 29,504 rows.
  await db.query(`ANALYZE ${SCHEMA}.many`);
  await db.query(`ANALYZE ${SCHEMA}.gappy`);
  // A polygon across the antimeridian, which GDAL's GeoJSON writer cuts in two.
  await db.query(
    `CREATE TABLE ${SCHEMA}.pacific (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label varchar(20), shape geometry(MultiPolygon, 4326))`,
  );
  await db.query(
    `INSERT INTO ${SCHEMA}.pacific (label, shape) VALUES ('fiji', 'SRID=4326;MULTIPOLYGON(((179 -17,181 -17,181 -16,179 -16,179 -17)))'), ('plain', 'SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)))')`,
  );
  // What a spreadsheet cell cannot hold as it is.
  await db.query(
    `CREATE TABLE ${SCHEMA}.odd (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label text, value double precision)`,
  );
  await db.query(`INSERT INTO ${SCHEMA}.odd (label, value) VALUES (E'a\\x01b\\x1f', 'NaN'), (E'\\r\\nz', 'Infinity'), (E'<&>"\\'', '-Infinity'),
    (' spaces  ', 1.5), (NULL, '-0')`);
  // Dates PostgreSQL holds at ±infinity, which GDAL leaves out.
  await db.query(`CREATE TABLE ${SCHEMA}.forever (objectid integer PRIMARY KEY, label text, at timestamptz)`);
  await db.query(
    `INSERT INTO ${SCHEMA}.forever VALUES (1, 'up', 'infinity'), (2, 'down', '-infinity'), (3, 'then', '2020-01-02 03:04:05.678+00'), (4, 'none', NULL)`,
  );
  // For progress and cancellation: long enough to be caught mid-stream.
  await db.query(`CREATE TABLE ${SCHEMA}.huge AS SELECT i AS objectid, 'n' || i AS name, ST_SetSRID(ST_MakePoint(i % 360 - 180, 0), 4326)::geometry(Point, 4326) AS shape
    FROM generate_series(1, 400000) i`);
  await db.query(`ALTER TABLE ${SCHEMA}.huge ADD PRIMARY KEY (objectid)`);
  pg = gdalPgConnection(process.env.TEST_DATABASE_URL!);
}, 120_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.end();
});

describe('CSV: COPY writes what GDAL wrote', () => {
  it.each([
    ['points with x/y', [layer('pts', 'esriGeometryPoint')], {}],
    [
      'x/y named as asked, projected to a wkid, filtered by a where clause',
      [
        layer('pts', 'esriGeometryPoint', {
          xColumnName: 'Easting',
          yColumnName: 'Northing',
          where: renderWhereSql("Count > 20 AND Name LIKE 'St%'", ATTRIBUTES),
        }),
      ],
      { target: { srid: 3857 } },
    ],
    ['projected to a WKT', [layer('pts', 'esriGeometryPoint')], { target: { wkt: gdal.SpatialReference.fromEPSG(32631).toWKT() } }],
    ['includeGeometry false', [layer('pts', 'esriGeometryPoint', { includeGeometry: false })], {}],
    ['60,000 rows over parallel sessions', [layer('many', 'esriGeometryPoint')], {}],
    [
      '60,000 rows in ranges down to 5,000 rows, taken by the sessions as they come free',
      [layer('many', 'esriGeometryPoint')],
      { copyRangeRows: 5_000 },
    ],
  ] as [string, ExportLayerSource[], Partial<ExportJob>][])(
    '%s: the same text but for the doubles, which keep every digit',
    async (_, layers, extra) => {
      const { gdalPath, streamed } = await both('csv', layers, extra);
      // GDAL reads CSV fields as text: the doubles' texts are compared as numbers, everything else character for character.
      const numeric = ['Area', 'x', 'y', 'Easting', 'Northing'];
      expect(expectSameLayers(open(gdalPath), open(streamed), { numeric, reals: 1e-14 })).toBeGreaterThan(0);
      // The streamed doubles read back as the stored ones.
      const areas = open(streamed)
        .layers.get(0)
        .features.map((f) => f.fields.get('Area') as string | null);
      const ids = open(streamed)
        .layers.get(0)
        .features.map((f) => Number(f.fields.get('OBJECTID')));
      const { rows } = await db.query<{ objectid: number; area: number | null }>(
        `SELECT objectid, area FROM ${SCHEMA}.${layers[0].table} WHERE objectid = ANY($1) ORDER BY objectid`,
        [ids],
      );
      expect(areas.map((a) => (a === '' || a === null ? null : Number(a)))).toEqual(rows.map((r) => r.area));
    },
    60_000,
  );

  it('text is quoted exactly where GDAL quotes it: a comma, quote, semicolon, tab or line break', async () => {
    // GDAL reads a cell the same quoted or not, so the text is compared: names only, whose cells are all text.
    const fields = ATTRIBUTES.filter((f) => f.name === 'OBJECTID' || f.name === 'Name');
    const { gdalPath, streamed } = await both('csv', [layer('pts', 'esriGeometryPoint', { includeGeometry: false, fields })]);
    const text = readFileSync(streamed, 'utf8');
    expect(text).toBe(readFileSync(gdalPath, 'utf8'));
    for (const quoted of ['"semicolon; alone"', '"tab\talone"', '"carriage\ralone"', '"comma, ""quote"""']) expect(text).toContain(quoted);
  });

  it("formulas escaped (the default): only text starting with = + - @ tab or CR differs, quoted with a ' in front", async () => {
    const fields = ATTRIBUTES.filter((f) => ['OBJECTID', 'Name', 'Count'].includes(f.name));
    const { gdalPath, streamed } = await both('csv', [layer('pts', 'esriGeometryPoint', { includeGeometry: false, fields })], {}, true);
    const before = readFileSync(gdalPath, 'utf8').split('\n');
    const after = readFileSync(streamed, 'utf8').split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [[before[i], line]]));
    // The one such name in the rows; negative counts are numbers and stay as they are.
    expect(changed).toEqual([[expect.stringMatching(/^\d+,=1\+1,5$/), expect.stringMatching(/^\d+,"'=1\+1",5$/)]]);
    expect(after.filter((l) => /,-\d+$/.test(l)).length).toBeGreaterThan(0);
  });

  it('lines and polygons as WKT, two layers zipped: the same features; coordinates to 15 significant digits', async () => {
    const { gdalPath, streamed } = await both('csv', [layer('polys', 'esriGeometryPolygon'), layer('lines', 'esriGeometryPolyline')], {
      target: { srid: 3857 },
    });
    const [a, b] = [openEach(gdalPath), openEach(streamed)];
    expect(b.map((d) => d.description)).toEqual(a.map((d) => d.description.replace(gdalPath, streamed)));
    // GDAL keeps the WKT text as a field too: that is where the digits differ.
    a.forEach((ds, i) => expect(expectSameLayers(ds, b[i], { coordinates: 1e-14, skip: ['WKT'] })).toBeGreaterThan(0));
  }, 60_000);
});

describe('GeoJSON: COPY writes what GDAL wrote', () => {
  it.each([
    ['points', [layer('pts', 'esriGeometryPoint')], {}],
    ['polygons with holes and several parts, from another target SR', [layer('polys', 'esriGeometryPolygon')], { target: { srid: 3857 } }],
    ['lines', [layer('lines', 'esriGeometryPolyline')], {}],
    [
      'includeGeometry false, filtered',
      [layer('pts', 'esriGeometryPoint', { includeGeometry: false, where: renderWhereSql('Count >= 100', ATTRIBUTES) })],
      {},
    ],
    ['60,000 rows over parallel sessions', [layer('many', 'esriGeometryPoint')], {}],
    [
      '60,000 rows in ranges down to 1,000 rows, some of them empty (the separators stay right)',
      [layer('gappy', 'esriGeometryPoint', { fields: ATTRIBUTES })],
      { copyRangeRows: 1_000 },
    ],
  ] as [string, ExportLayerSource[], Partial<ExportJob>][])(
    '%s: the same features',
    async (_, layers, extra) => {
      const { gdalPath, streamed } = await both('geojson', layers, extra);
      // Reals to the last digit GDAL keeps; coordinates identical (both rounded to 7 decimals).
      expect(expectSameLayers(open(gdalPath), open(streamed), { reals: 1e-15 })).toBeGreaterThan(0);
      const doc = JSON.parse(readFileSync(streamed, 'utf8'));
      expect(Object.keys(doc)).toEqual(['type', 'name', 'features']);
      // Dates as GDAL's text: GDAL reads them back to the whole second only, so the milliseconds are compared here.
      const dates = (d: { features: { properties: { Founded?: string } }[] }) => d.features.map((f) => f.properties.Founded);
      expect(dates(doc)).toEqual(dates(JSON.parse(readFileSync(gdalPath, 'utf8'))));
    },
    60_000,
  );

  it('a first field GDAL leaves out (NaN, infinities) leaves no stray comma: the same text', async () => {
    const odd = exportLayer(
      SCHEMA,
      'odd',
      null,
      [field('Value', 'esriFieldTypeDouble'), field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString', 50)],
      { name: 'odd' },
    );
    const { gdalPath, streamed } = await both('geojson', [odd]);
    const text = readFileSync(streamed, 'utf8');
    expect(text).toContain('"properties": { "OBJECTID": 1,');
    expect(text).toBe(readFileSync(gdalPath, 'utf8'));
  });

  it.each([
    ['after the OID', ['OBJECTID', 'Label', 'At']],
    ['first', ['At', 'OBJECTID', 'Label']],
  ])('a date at ±infinity, %s, is left out of its feature as GDAL leaves it; CSV leaves its cell empty', async (_, order) => {
    const fields = {
      OBJECTID: field('OBJECTID', 'esriFieldTypeOID'),
      Label: field('Label', 'esriFieldTypeString', 20),
      At: field('At', 'esriFieldTypeDate'),
    } as Record<string, ReturnType<typeof field>>;
    const forever = exportLayer(
      SCHEMA,
      'forever',
      null,
      order.map((k) => fields[k]),
      { name: 'forever' },
    );
    const json = await both('geojson', [forever]);
    const text = readFileSync(json.streamed, 'utf8');
    expect(JSON.parse(text).features).toHaveLength(4);
    expect(text).toBe(readFileSync(json.gdalPath, 'utf8'));
    const csv = await both('csv', [forever]);
    expect(readFileSync(csv.streamed, 'utf8').split('\n').slice(1, 3)).toEqual(
      order[0] === 'At' ? [',1,up', ',2,down'] : ['1,up,', '2,down,'],
    );
    expectSameLayers(open(csv.gdalPath), open(csv.streamed), {});
  });

  it('a layer crossing the antimeridian is left to GDAL, which cuts it', async () => {
    const { gdalPath, streamed } = await both('geojson', [layer('pacific', 'esriGeometryPolygon')]);
    expect(readFileSync(streamed, 'utf8')).toBe(readFileSync(gdalPath, 'utf8'));
    expect(JSON.parse(readFileSync(streamed, 'utf8')).features[0].geometry.type).toBe('MultiPolygon');
  });

  it('two layers zip as before', async () => {
    const { gdalPath, streamed } = await both('geojson', [layer('pts', 'esriGeometryPoint'), layer('lines', 'esriGeometryPolyline')]);
    const [a, b] = [openEach(gdalPath), openEach(streamed)];
    expect(gdal.fs.readDir(`/vsizip/${streamed}`).sort()).toEqual(['Stadte.geojson', 'lines.geojson']);
    a.forEach((ds, i) => expectSameLayers(ds, b[i], { reals: 1e-15 }));
  });
});

describe('Excel: PostgreSQL writes the sheets GDAL wrote', () => {
  it('one workbook, a sheet per layer, the same rows and types', async () => {
    // Excel holds doubles: big integers beyond 2^53 (and the row without one) stay out of this comparison.
    const pts = layer('pts', 'esriGeometryPoint', { where: '"big" < 9007199254740992' });
    const { gdalPath, streamed } = await both('excel', [pts, layer('polys', 'esriGeometryPolygon')], { target: { srid: 3857 } });
    // GDAL wrote 16 significant digits (3.666666666666667); the sheet the exact double (3.6666666666666665). A
    // carriage return survives as a reference, where GDAL's literal one was read back as a line feed.
    expect(expectSameLayers(open(gdalPath), open(streamed), { reals: 1e-15, skip: ['Name'] })).toBe(301 + 63);
    const names = (path: string) => {
      const l = open(path).layers.get(0);
      return l.features.map((f) => f.fields.get('Name') as string | null);
    };
    const cr = new Map([
      ['line\nbreak\n', 'line\nbreak\r'],
      ['carriage\nalone', 'carriage\ralone'],
    ]);
    expect(names(streamed)).toEqual(names(gdalPath).map((n) => (n !== null && cr.get(n)) || n));
  }, 60_000);

  it('60,000 rows over parallel sessions, numbered across them; an empty layer is an empty sheet', async () => {
    const empty = layer('pts', 'esriGeometryPoint', { name: 'none', where: '1=0' });
    const { gdalPath, streamed } = await both('excel', [layer('many', 'esriGeometryPoint'), empty]);
    expect(expectSameLayers(open(gdalPath), open(streamed), { reals: 1e-15 })).toBe(60_000);
    const book = readWorkbook(streamed);
    expect(Object.keys(book)).toEqual(['many', 'none']);
    expect(book.none).toEqual([]);
    const rows = book.many;
    expect(rows[0]).toEqual([...ATTRIBUTES.map((f) => f.name), 'x', 'y']);
    expect(rows).toHaveLength(60_001);
    const { rows: stored } = await db.query(`SELECT objectid, name, count, area, ST_X(shape) AS x FROM ${SCHEMA}.many ORDER BY objectid`);
    // Row k holds feature k: the second session's rows follow the first's without a gap or an overlap.
    rows.slice(1).forEach((r, k) => {
      const s = stored[k];
      if (r[0] !== s.objectid || r[1] !== s.name || r[3] !== s.count || r[6] !== s.area || r[9] !== s.x)
        throw new Error(`row ${k + 2}: ${JSON.stringify(r)} against ${JSON.stringify(s)}`);
    });
  }, 60_000);

  it('openpyxl reads every value as stored: text exactly, numbers exactly, dates to the millisecond', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'export-engines-openpyxl-'));
    dirs.push(workDir);
    const { path } = await writeExport({
      format: 'excel',
      layers: [
        layer('pts', 'esriGeometryPoint'),
        layer('odd', null, {
          fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString'), field('Value', 'esriFieldTypeDouble')],
        }),
      ],
      pg,
      workDir,
      baseName: 'Read',
    });
    const book = readWorkbook(path);
    expect(Object.keys(book)).toEqual(['Stadte', 'odd']);
    const { rows: stored } = await db.query(
      `SELECT objectid, name, small, count, big::float8 AS big, ratio::text::float8 AS ratio, area,
              round(extract(epoch FROM founded) * 1000)::float8 AS founded, founded >= '1900-01-01' AS modern, ref::text AS ref, ST_X(shape) AS x, ST_Y(shape) AS y
         FROM ${SCHEMA}.pts ORDER BY objectid`,
    );
    const sheet = book.Stadte;
    expect(sheet).toHaveLength(stored.length + 1);
    stored.forEach((want, k) => {
      const got = sheet[k + 1];
      // openpyxl gives dates from 1900 on as dates (earlier ones are negative serials) and rounds to milliseconds.
      const founded = want.founded !== null && want.modern ? want.founded : undefined;
      const expected = [
        want.objectid,
        want.name,
        want.small,
        want.count,
        want.big,
        want.ratio,
        want.area,
        founded,
        want.ref,
        want.x,
        want.y,
      ];
      const actual = got.map((v, i) => (i === 7 && typeof v === 'string' ? Date.parse(`${v}Z`) : v));
      expected.forEach((e, i) => {
        if (i === 7 && e === undefined) return;
        if (actual[i] !== (e ?? null)) throw new Error(`row ${k + 2} column ${i}: ${JSON.stringify(actual[i])}, want ${JSON.stringify(e)}`);
      });
    });
    // What a cell cannot hold: controls XML cannot carry are dropped, numbers that are not finite left out.
    expect(book.odd).toEqual([
      ['OBJECTID', 'Label', 'Value'],
      [1, 'ab', null],
      [2, '\r\nz', null],
      [3, '<&>"\'', null],
      [4, ' spaces  ', 1.5],
      [5, null, 0],
    ]);
  }, 60_000);
});

/** The layer written alone as an Excel workbook by the streaming engine, its sheet as openpyxl reads it. */
async function excelSheet(l: ExportLayerSource): Promise<Cell[][]> {
  const workDir = await mkdtemp(join(tmpdir(), 'export-engines-sheet-'));
  dirs.push(workDir);
  const { path } = await writeExport({ format: 'excel', layers: [l], pg, workDir, baseName: 'Sheet' });
  return Object.values(readWorkbook(path))[0];
}

describe('Excel: what Excel itself reads', () => {
  const table = (name: string, columns: string) =>
    db.query(`CREATE TABLE ${SCHEMA}.${name} (objectid integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, ${columns})`);

  it('a date at ±infinity is left out, as GDAL left it, instead of failing the export', async () => {
    await table('endless', 'founded timestamptz');
    await db.query(`INSERT INTO ${SCHEMA}.endless (founded) VALUES ('infinity'), ('-infinity'), ('2020-01-02 03:04:05+00')`);
    const endless = layer('endless', null, { fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Founded', 'esriFieldTypeDate')] });
    expect(await excelSheet(endless)).toEqual([
      ['OBJECTID', 'Founded'],
      [1, null],
      [2, null],
      [3, '2020-01-02T03:04:05.000'],
    ]);
    const { gdalPath, streamed } = await both('excel', [endless]);
    expect(expectSameLayers(open(gdalPath), open(streamed))).toBe(3);
  });

  it('dates before March 1900 on the day Excel shows, which counts 1900 as a leap year', async () => {
    await table('early', 'founded timestamptz');
    await db.query(`INSERT INTO ${SCHEMA}.early (founded) VALUES ('1900-01-01+00'), ('1900-01-15 06:00+00'), ('1900-02-28 12:00:00.5+00'),
      ('1900-02-28 23:59:59.9996+00'), ('1900-03-01+00'), ('1900-03-02 00:00:00.001+00')`);
    const early = layer('early', null, { fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Founded', 'esriFieldTypeDate')] });
    // openpyxl reads serials as Excel does: 1 is 1900-01-01, 60 the 29 February 1900 that never was, 61 1900-03-01.
    expect((await excelSheet(early)).map((r) => r[1])).toEqual([
      'Founded',
      '1900-01-01T00:00:00.000',
      '1900-01-15T06:00:00.000',
      '1900-02-28T12:00:00.500',
      '1900-03-01T00:00:00.000',
      '1900-03-01T00:00:00.000',
      '1900-03-02T00:00:00.001',
    ]);
  });

  it("text shaped like Excel's _xHHHH_ escapes reads as written, in values and field names", async () => {
    await table('escapes', '_x0042_ text');
    await db.query(`INSERT INTO ${SCHEMA}.escapes (_x0042_) VALUES ('_x0041_'), ('_x0041_x0042_'), (E'_x00\\x0141_'),
      ('a_X0041_ _x004_ _xZZZZ_ _x00411_'), ('&_x003C_<')`);
    const escapes = layer('escapes', null, { fields: [field('OBJECTID', 'esriFieldTypeOID'), field('_x0042_', 'esriFieldTypeString')] });
    // readWorkbook decodes the escapes as Excel does; a control character is dropped before the text is escaped.
    expect(await excelSheet(escapes)).toEqual([
      ['OBJECTID', '_x0042_'],
      [1, '_x0041_'],
      [2, '_x0041_x0042_'],
      [3, '_x0041_'],
      [4, 'a_X0041_ _x004_ _xZZZZ_ _x00411_'],
      [5, '&_x003C_<'],
    ]);
  });

  it('text is cut to the 32,767 characters (UTF-16 units) a cell holds, past which Excel repairs the file', async () => {
    await table('long', 'label text');
    await db.query(`INSERT INTO ${SCHEMA}.long (label) VALUES (repeat('a', 40000)), (repeat('😀', 20000)), ('a' || repeat('😀', 20000)),
      (repeat('b', 32767)), (repeat('&', 40000)), (E'\\x01' || repeat('c', 32767) || E'\\x01'), ('short')`);
    const long = layer('long', null, { fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString')] });
    const labels = (await excelSheet(long)).slice(1).map((r) => r[1] as string);
    expect(labels).toEqual([
      'a'.repeat(32767),
      '😀'.repeat(16383),
      `a${'😀'.repeat(16383)}`,
      'b'.repeat(32767),
      '&'.repeat(32767),
      'c'.repeat(32767),
      'short',
    ]);
  }, 60_000);

  it('the row limit is checked on the rows the snapshot holds, not on a count taken before it', async () => {
    // The measure comes from an earlier transaction: rows added since count too.
    await db.query(`CREATE TABLE ${SCHEMA}.full AS SELECT i AS objectid FROM generate_series(1, 1048576) i`);
    const full = layer('full', null, { fields: [field('OBJECTID', 'esriFieldTypeOID')] });
    const workDir = await mkdtemp(join(tmpdir(), 'export-engines-full-'));
    dirs.push(workDir);
    const write = writeWorkbook({
      pg,
      sessionName: 'engines-full',
      path: join(workDir, 'full.xlsx'),
      sheets: [{ layer: full, sheetName: 'full', target: null, rows: 10 }],
    });
    await expect(write).rejects.toThrow(ExportWriteError);
    await expect(write).rejects.toThrow(/'full' has 1,048,576 rows; an Excel sheet holds at most 1,048,575/);
    expect(await readdir(workDir)).toEqual([]);
  }, 60_000);

  it('rows are counted where they are read: ranges stay numbered end to end under a where clause on CURRENT_TIMESTAMP', async () => {
    // Every session has its own CURRENT_TIMESTAMP (its transaction's start). The rows of the second range have dates
    // a millisecond apart from now on, so a count taken in the first session misses some the second one writes.
    await table('recent', 'founded timestamptz');
    await db.query(`INSERT INTO ${SCHEMA}.recent (founded) SELECT CASE WHEN i BETWEEN 40001 AND 55000
      THEN clock_timestamp() + (i - 40000) * interval '1 millisecond' ELSE '2000-01-01' END FROM generate_series(1, 70000) i`);
    const fields = [field('OBJECTID', 'esriFieldTypeOID'), field('Founded', 'esriFieldTypeDate')];
    const recent = layer('recent', null, { fields, where: renderWhereSql('Founded < CURRENT_TIMESTAMP', fields) });
    const rows = (await excelSheet(recent)).slice(1);
    // openpyxl (and pandas through it) reads no further than the sheet's stated size.
    expect(rows[rows.length - 1][0]).toBe(70000);
    const ids = rows.map((r) => r[0] as number);
    expect(ids.every((id, k) => k === 0 || id > ids[k - 1])).toBe(true);
    expect(ids.filter((id) => id > 55000)).toHaveLength(15000);
  }, 60_000);

  it('the workbook has a window (workbookView): optional in the schema, but Excel print preview has crashed without one', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'export-engines-views-'));
    dirs.push(workDir);
    const { path } = await writeExport({
      format: 'excel',
      layers: [layer('polys', 'esriGeometryPolygon')],
      pg,
      workDir,
      baseName: 'Views',
    });
    expect(readPart(path, 'xl/workbook.xml')).toMatch(/<bookViews><workbookView\/><\/bookViews><sheets><sheet name="polys" /);
  });
});

/** Sessions end asynchronously once closed or terminated: polls pg_stat_activity for a few seconds. */
const waitForNoSessions = (sessionName: string) =>
  waitFor(
    `the sessions of ${sessionName} to end`,
    async () =>
      (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1`, [`${sessionName}%`])).rows[0].n ===
      0,
    5000,
  );

describe('progress and cancellation', () => {
  it.each(['csv', 'geojson', 'excel'] as const)(
    '%s: progress rises to 1',
    async (format) => {
      const workDir = await mkdtemp(join(tmpdir(), 'export-engines-progress-'));
      dirs.push(workDir);
      const seen: ExportProgress[] = [];
      await writeExport({ format, layers: [huge()], pg, workDir, baseName: 'p', onProgress: (p) => seen.push(p) });
      const overall = seen.map((p) => p.overall);
      expect(overall).toEqual([...overall].sort((a, b) => a - b));
      expect(seen.filter((p) => p.overall > 0 && p.overall < 1).length).toBeGreaterThan(0);
      expect(seen[seen.length - 1]).toMatchObject({ fraction: 1, overall: 1 });
    },
    60_000,
  );

  it.each(['csv', 'geojson'] as const)(
    "%s: counts against the planner's estimate, and on past it when the estimate was low; Excel counts",
    async (format) => {
      const messages = async (f: ExportFormat, where: string) => {
        const workDir = await mkdtemp(join(tmpdir(), 'export-engines-estimate-'));
        dirs.push(workDir);
        const seen: ExportProgress[] = [];
        const layers = [{ ...huge(), where }];
        const out = await writeExport({ format: f, layers, pg, workDir, baseName: 'e', onProgress: (p) => seen.push(p) });
        const overall = seen.map((p) => p.overall);
        expect(overall).toEqual([...overall].sort((a, b) => a - b));
        return { text: seen.map((p) => p.message), seen, out };
      };
      // Two expressions the planner knows nothing of are equal for one row in 200, it takes: 2,000 of 400,000.
      const low = await messages(format, 'length(name) = length(name) + 0');
      const announced = /\(about ([\d,]+) features\)/.exec(low.text[0]);
      expect(Number(announced?.[1].replace(/,/g, ''))).toBeLessThan(10_000);
      // Reported every 50,000 rows, all past the estimate.
      const writing = low.text.filter((m) => m.startsWith("Writing 'huge'"));
      expect(writing.length).toBeGreaterThan(0);
      for (const m of writing) expect(m).toMatch(/^Writing 'huge': [\d,]+ features$/);
      // and the bar still moves, short of full until the layer is written
      const fractions = low.seen.filter((p) => p.message.startsWith("Writing 'huge'")).map((p) => p.fraction);
      expect(new Set(fractions).size).toBe(fractions.length);
      expect(Math.max(...fractions)).toBeLessThan(1);
      const text = readFileSync(low.out.path, 'utf8');
      const rows = format === 'csv' ? text.split('\n').filter(Boolean).length - 1 : JSON.parse(text).features.length;
      expect(rows).toBe(400_000);

      const plain = await messages(format, '1=1');
      expect(plain.text[0]).toMatch(/\(about [34]\d\d,\d{3} features\)$/);
      expect(plain.text.some((m) => /^Writing 'huge': [\d,]+ of about [34]\d\d,\d{3} features$/.test(m))).toBe(true);
      // Excel refuses more rows than a sheet holds, so it counts them.
      const excel = await messages('excel', '1=1');
      expect(excel.text.some((m) => / of 400,000 rows$/.test(m))).toBe(true);
    },
    120_000,
  );

  it('csv: sessions opened ahead for a layer estimated large are closed when it has no rows to split', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'export-engines-empty-'));
    dirs.push(workDir);
    const sessionName = 'engines-estimated-empty';
    // Taken for 995 rows in 1,000; none match.
    const layers = [{ ...huge(), where: 'length(name) <> length(name) + 0' }];
    const seen: string[] = [];
    const out = await writeExport({
      format: 'csv',
      layers,
      pg,
      workDir,
      baseName: 'e',
      sessionName,
      onProgress: (p) => seen.push(p.message),
    });
    expect(seen[0]).toMatch(/\(about [34]\d\d,\d{3} features\)$/);
    expect(readFileSync(out.path, 'utf8')).toBe('OBJECTID,Name,x,y\n');
    await waitForNoSessions(sessionName);
  });

  it.each(['csv', 'geojson', 'excel'] as const)(
    '%s: an abort mid-stream ends the sessions and leaves nothing',
    async (format) => {
      const workDir = await mkdtemp(join(tmpdir(), 'export-engines-abort-'));
      dirs.push(workDir);
      const controller = new AbortController();
      const sessionName = `engines-abort-${format}`;
      const started = Date.now();
      const p = writeExport({
        format,
        layers: [huge()],
        pg,
        workDir,
        baseName: 'a',
        sessionName,
        signal: controller.signal,
        // Aborted once rows are being written.
        onProgress: (e) => {
          if (e.fraction > 0 && e.fraction < 1) controller.abort();
        },
      });
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await readdir(workDir)).toEqual([]);
      await waitForNoSessions(sessionName);
    },
    60_000,
  );
});

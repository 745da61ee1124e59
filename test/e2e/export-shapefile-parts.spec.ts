/**
 * Shapefile layers written in parts (shapefile-parts.ts, shapefile-merge.ts) against the same layers written by one
 * GDAL translate (engine 'gdal'): every file of the zip byte for byte, but the .dbf's date of last update. Covers
 * points (first row without geometry, nulls and empty shapes among them, OID gaps, ranges with no rows), polygons
 * with holes, lines, multipoints, a where clause, reprojection and a layer exported without geometry; then an edit
 * made while the parts are written, which must not give a file mixing two states of the layer.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { gdalPgConnection } from '../../src/core/database/gdal-pg';
import { ExportJob, ExportLayerSource, writeExport } from '../../src/export/writer';
import { planShapefileParts } from '../../src/export/writer/shapefile/shapefile-parts';
import { ShapefileMergeError, ShapefileMerger } from '../../src/export/writer/shapefile/shapefile-merge';
import { openPg } from '../../src/export/writer/source';
import { translateLayer } from '../../src/export/writer/gdal/translate';
import { dataVersionTriggerSql } from '../../src/layers/data-version';
import { exportLayer, layerField as field } from '../support/layer-field';
import { waitFor } from '../support/wait-for';

const SCHEMA = `svc_shpparts_${process.pid}`;
const FIELDS = [
  field('OBJECTID', 'esriFieldTypeOID'),
  field('Label', 'esriFieldTypeString', 40),
  field('Value', 'esriFieldTypeDouble'),
  field('Count', 'esriFieldTypeInteger'),
  field('Seen', 'esriFieldTypeDate'),
];
const SPLIT = { minRows: 1, partRows: 700 };

let db: Client;
let pg: string;
let workDir: string;

const layer = (table: string, geometryType: ExportLayerSource['geometryType'], over: Partial<ExportLayerSource> = {}) =>
  exportLayer(SCHEMA, table, geometryType, FIELDS, over);

/** The zip's files, unpacked. */
async function unpack(zip: string): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(workDir, 'unzip-'));
  execFileSync('unzip', ['-q', zip, '-d', dir]);
  const out = new Map<string, Buffer>();
  for (const f of await readdir(dir)) out.set(f, await readFile(join(dir, f)));
  await rm(dir, { recursive: true });
  return out;
}

async function exportShp(layers: ExportLayerSource[], extra: Partial<ExportJob> = {}): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(workDir, 'job-'));
  const out = await writeExport({ format: 'shapefile', layers, pg, workDir: dir, baseName: 'parts', ...extra });
  return unpack(out.path);
}

/** The .dbf's date of last update (bytes 1-3) is the day it was written. */
const undated = (name: string, b: Buffer) => (name.endsWith('.dbf') ? Buffer.concat([b.subarray(0, 1), b.subarray(4)]) : b);

function expectSameFiles(parts: Map<string, Buffer>, whole: Map<string, Buffer>): void {
  expect([...parts.keys()].sort()).toEqual([...whole.keys()].sort());
  for (const [name, bytes] of whole) {
    const mine = parts.get(name)!;
    expect({ name, size: mine.length }).toEqual({ name, size: bytes.length });
    expect(undated(name, mine).equals(undated(name, bytes))).toBe(true);
  }
}

beforeAll(async () => {
  db = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
  const columns = `objectid integer PRIMARY KEY, label varchar(40), value double precision, count integer, seen timestamptz`;
  const values = (i: string) =>
    `CASE WHEN ${i} % 13 = 0 THEN NULL ELSE 'n° ' || ${i} || ' ünïcödé 東京' END, ${i} * 1.25, ${i}, timestamptz '2020-01-01' + ${i} * interval '7 hours'`;
  await db.query(`CREATE TABLE ${SCHEMA}.pts (${columns}, shape geometry(Point, 4326))`);
  // OIDs with gaps and a hole of 1,500 (whole parts with no rows); the first row has no geometry, which puts (0, 0)
  // in GDAL's extent of the file (shapelib starts it from the first record), away from the points.
  await db.query(`INSERT INTO ${SCHEMA}.pts SELECT i * 3 + 7 + CASE WHEN i > 2000 THEN 1500 ELSE 0 END, ${values('i')},
      CASE WHEN i = 1 OR i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN ST_SetSRID('POINT EMPTY'::geometry, 4326)
           ELSE ST_SetSRID(ST_MakePoint(10 + abs(sin(i)) * 160, 5 + abs(cos(i * 1.7)) * 80), 4326) END
    FROM generate_series(1, 5000) i`);
  await db.query(`CREATE TABLE ${SCHEMA}.polys (${columns}, shape geometry(MultiPolygon, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.polys SELECT i, ${values('i')},
      CASE WHEN i % 50 = 0 THEN NULL ELSE ST_Multi(ST_Difference(
        ST_Buffer(ST_SetSRID(ST_MakePoint(sin(i) * 60, cos(i) * 60), 4326), 2, 3),
        ST_Buffer(ST_SetSRID(ST_MakePoint(sin(i) * 60, cos(i) * 60), 4326), 0.5, 2))) END
    FROM generate_series(1, 1500) i`);
  await db.query(`CREATE TABLE ${SCHEMA}.lines (${columns}, shape geometry(MultiLineString, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.lines SELECT i, ${values('i')},
      ST_Multi(ST_MakeLine(ARRAY[ST_MakePoint(i * 0.01, 0.5), ST_MakePoint(i * 0.01 + 0.3, 0.9), ST_MakePoint(i * 0.01 - 0.2, 0.1)]))::geometry(MultiLineString, 4326)
    FROM generate_series(1, 1600) i`);
  await db.query(`CREATE TABLE ${SCHEMA}.mpts (${columns}, shape geometry(MultiPoint, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.mpts SELECT i, ${values('i')},
      ST_Multi(ST_Collect(ST_MakePoint(i * 0.001, 1), ST_MakePoint(-i * 0.002, i * 0.0001)))::geometry(MultiPoint, 4326)
    FROM generate_series(1, 1500) i`);
  for (const t of ['pts', 'polys', 'lines', 'mpts']) {
    await db.query(dataVersionTriggerSql(`${SCHEMA}.${t}`));
    await db.query(`ANALYZE ${SCHEMA}.${t}`);
  }
  pg = gdalPgConnection(process.env.TEST_DATABASE_URL!);
  workDir = await mkdtemp(join(tmpdir(), 'shp-parts-'));
}, 120_000);

afterAll(async () => {
  await db.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
  await db.end();
  await rm(workDir, { recursive: true, force: true });
});

describe('shapefile in parts', () => {
  it('plans parts of at most partRows by OID, and none for small or untracked layers', async () => {
    const job = { layerName: 'pts', target: null, conn: '', pg, sessionName: 'plan-test', dir: workDir, scratch: workDir };
    const plan = await planShapefileParts({ ...job, layer: layer('pts', 'esriGeometryPoint'), rows: 5000, split: SPLIT });
    expect(plan).not.toBeNull();
    expect(plan!.ranges.length).toBe(Math.ceil(5000 / 700));
    expect(plan!.ranges[0].from).toBe(10);
    expect(plan!.ranges.at(-1)!.to).toBe(5000 * 3 + 7 + 1500);
    expect(await planShapefileParts({ ...job, layer: layer('pts', 'esriGeometryPoint'), rows: 5000 })).toBeNull();
    await db.query(`CREATE TABLE ${SCHEMA}.untracked AS SELECT * FROM ${SCHEMA}.pts`);
    expect(await planShapefileParts({ ...job, layer: layer('untracked', 'esriGeometryPoint'), rows: 5000, split: SPLIT })).toBeNull();
    // A trigger that fires for replicas only counts no ordinary edit.
    await db.query(dataVersionTriggerSql(`${SCHEMA}.untracked`));
    expect(await planShapefileParts({ ...job, layer: layer('untracked', 'esriGeometryPoint'), rows: 5000, split: SPLIT })).not.toBeNull();
    await db.query(`ALTER TABLE ${SCHEMA}.untracked ENABLE REPLICA TRIGGER feature_data_version`);
    expect(await planShapefileParts({ ...job, layer: layer('untracked', 'esriGeometryPoint'), rows: 5000, split: SPLIT })).toBeNull();
  });

  const cases: [string, ExportLayerSource[], Partial<ExportJob>][] = [
    ['points', [layer('pts', 'esriGeometryPoint')], {}],
    [
      'polygons with holes, lines and multipoints',
      [
        layer('polys', 'esriGeometryPolygon'),
        layer('lines', 'esriGeometryPolyline', { id: 1 }),
        layer('mpts', 'esriGeometryMultipoint', { id: 2 }),
      ],
      {},
    ],
    ['a where clause', [layer('pts', 'esriGeometryPoint', { where: `count % 3 <> 1 AND label IS NOT NULL` })], {}],
    ['reprojected', [layer('polys', 'esriGeometryPolygon')], { target: { srid: 3857 } }],
    ['without geometry', [layer('pts', 'esriGeometryPoint', { includeGeometry: false })], {}],
  ];
  it.each(cases)(
    '%s: the same files as one translate',
    async (_, layers, extra) => {
      const whole = await exportShp(layers, { ...extra, engine: 'gdal' });
      const parts = await exportShp(layers, { ...extra, shapefileSplit: SPLIT });
      expectSameFiles(parts, whole);
    },
    120_000,
  );

  it('a layer edited while its parts are written is written again, in one state', async () => {
    await db.query(`CREATE TABLE ${SCHEMA}.busy AS SELECT * FROM ${SCHEMA}.pts`);
    await db.query(`ALTER TABLE ${SCHEMA}.busy ADD PRIMARY KEY (objectid)`);
    await db.query(dataVersionTriggerSql(`${SCHEMA}.busy`));
    const messages: string[] = [];
    let edit: Promise<unknown> | undefined;
    const parts = await exportShp([layer('busy', 'esriGeometryPoint')], {
      shapefileSplit: { minRows: 1, partRows: 100 },
      onProgress: (p) => {
        messages.push(p.message);
        // Once the first parts are joined, every row is edited (one statement).
        if (!edit && /Writing 'busy': [1-9]/.test(p.message)) edit = db.query(`UPDATE ${SCHEMA}.busy SET label = 'edited'`);
      },
    });
    await edit;
    expect(messages).toContain(`'busy' was edited while it was written: writing it again`);
    const whole = await exportShp([layer('busy', 'esriGeometryPoint')], { engine: 'gdal' });
    expectSameFiles(parts, whole);
  }, 120_000);

  it('refuses parts that do not fit together, or are cut short', async () => {
    const dir = await mkdtemp(join(workDir, 'bad-'));
    const src = await openPg(pg);
    const write = async (sub: string, columns: string, where: string) => {
      await mkdir(join(dir, sub));
      const sql = `SELECT ${columns}, shape FROM ${SCHEMA}.pts WHERE ${where} ORDER BY objectid`;
      await translateLayer(src, join(dir, sub, 'x.shp'), ['-f', 'ESRI Shapefile', '-sql', sql, '-nln', 'x', '-nlt', 'POINT']);
    };
    try {
      await write('a', 'objectid, label', 'objectid < 500');
      await write('b', 'objectid, count', 'objectid >= 500 AND objectid < 900');
      await write('c', 'objectid, label', 'objectid >= 900 AND objectid < 1300');
      await mkdir(join(dir, 'out1'));
      const other = new ShapefileMerger(join(dir, 'out1'), 'x');
      await other.append(join(dir, 'a'));
      // One part joined is that part; what a part adds is its records (header: 32 bytes, 32 per field, a terminator).
      const a = { shp: (await stat(join(dir, 'a', 'x.shp'))).size, dbf: (await stat(join(dir, 'a', 'x.dbf'))).size };
      expect(other.sizes).toEqual(a);
      const added = await ShapefileMerger.partSizes(join(dir, 'a'), 'x');
      expect({ shp: a.shp - added.shp, dbf: a.dbf - added.dbf }).toEqual({ shp: 100, dbf: 32 + 2 * 32 + 1 + 1 });
      await expect(other.append(join(dir, 'b'))).rejects.toThrow(
        new ShapefileMergeError('the parts of a shapefile have different .dbf fields'),
      );
      await other.close();
      const shp = join(dir, 'c', 'x.shp');
      await truncate(shp, (await stat(shp)).size - 10);
      await mkdir(join(dir, 'out2'));
      const cut = new ShapefileMerger(join(dir, 'out2'), 'x');
      await cut.append(join(dir, 'a'));
      await expect(cut.append(join(dir, 'c'))).rejects.toThrow(ShapefileMergeError);
      await cut.close();
    } finally {
      src.close();
    }
  });

  it('an abort while parts are written ends every session and leaves nothing', async () => {
    const dir = await mkdtemp(join(workDir, 'abort-'));
    const controller = new AbortController();
    const sessionName = `shp-parts-abort-${process.pid}`;
    const p = writeExport({
      format: 'shapefile',
      layers: [layer('pts', 'esriGeometryPoint')],
      pg,
      workDir: dir,
      baseName: 'a',
      sessionName,
      signal: controller.signal,
      shapefileSplit: { minRows: 1, partRows: 100 },
      onProgress: (e) => {
        if (/Writing 'pts': [1-9]/.test(e.message)) controller.abort();
      },
    });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(await readdir(dir)).toEqual([]);
    await waitFor(
      'the export sessions to end',
      async () =>
        (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1`, [`${sessionName}%`])).rows[0]
          .n === 0,
      5000,
    );
  });
});

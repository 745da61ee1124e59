/**
 * GeoPackage exports get their spatial index packed by gpkg-rtree.ts instead of filled by GDAL. Checked against a
 * copy whose index GDAL builds itself (same entries, same triggers), with SQLite's rtreecheck, box queries against
 * brute force, GDAL's spatial filter, later edits through GDAL, and every case that must fall back to GDAL.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as gdal from 'gdal-async';
import { Client } from 'pg';
import { gdalPgConnection } from '../../src/core/database/gdal-pg';
import { ExportFormat, ExportJob, ExportLayerSource, writeExport } from '../../src/export/writer';
import { packsGpkgIndex } from '../../src/export/writer/gdal/args';
import { addGpkgRtree, startRtreeEntries, stopRtreeEntries } from '../../src/export/writer/gpkg/gpkg-rtree';
import { valueDown, valueUp } from '../../src/export/writer/gpkg/gpkg-rtree-pack';
import { exportLayer, layerField } from '../support/layer-field';
import { waitFor } from '../support/wait-for';

const SCHEMA = `svc_gpkgrtree_${process.pid}`;
const field = layerField;
const FIELDS = [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString')];

let db: Client;
let pg: string;
let workDir: string;

const layer = (table: string, geometryType: ExportLayerSource['geometryType'], over: Partial<ExportLayerSource> = {}) =>
  exportLayer(SCHEMA, table, geometryType, FIELDS, over);
const POINTS = layer('pts', 'esriGeometryPoint');
const POLYS = layer('polys', 'esriGeometryPolygon', { id: 1 });
const LINES = layer('lines', 'esriGeometryPolyline', { id: 2 });

const run = (format: ExportFormat, layers: ExportLayerSource[], extra: Partial<ExportJob> = {}) =>
  writeExport({ format, layers, pg, workDir, baseName: 'idx', ...extra });

async function one(ds: gdal.Dataset, sql: string): Promise<Record<string, unknown>> {
  const rs = await ds.executeSQLAsync(sql);
  return (await rs.features.firstAsync())!.fields.toObject();
}

async function exec(ds: gdal.Dataset, sql: string): Promise<void> {
  await ds.executeSQLAsync(sql).catch((e: Error) => {
    if (e.message !== '') throw e;
  });
}

/** A copy of the export whose index GDAL 3.6 built itself, from scratch. */
async function gdalReference(path: string, tables: string[]): Promise<string> {
  const ref = `${path}.ref.gpkg`;
  await copyFile(path, ref);
  const ds = await gdal.openAsync(ref, 'r+');
  for (const t of tables) {
    await exec(ds, `SELECT DisableSpatialIndex('${t}', 'shape')`);
    await exec(ds, `SELECT CreateSpatialIndex('${t}', 'shape')`);
  }
  ds.close();
  return ref;
}

/** rtreecheck, and rtree box counts against a scan of the table for several boxes. */
async function checkIndex(ds: gdal.Dataset, table: string): Promise<void> {
  const rtree = `rtree_${table}_shape`;
  expect(await one(ds, `SELECT rtreecheck('${rtree}') AS r`)).toEqual({ r: 'ok' });
  expect(ds.layers.get(table).testCapability(gdal.OLCFastSpatialFilter)).toBe(true);
  const boxes = [
    [-180, 180, -90, 90],
    [-20.123, 35.5, -10.25, 44.75],
    [0.31, 0.97, 0.13, 0.71],
    [100, 101, 50, 51],
  ];
  const live = `shape NOT NULL AND NOT ST_IsEmpty(shape)`;
  expect(await one(ds, `SELECT count(*) AS n FROM "${rtree}"`)).toEqual(
    await one(ds, `SELECT count(*) AS n FROM "${table}" WHERE ${live}`),
  );
  for (const [x0, x1, y0, y1] of boxes) {
    const inIndex = await one(
      ds,
      `SELECT count(*) AS n FROM "${rtree}" WHERE maxx >= ${x0} AND minx <= ${x1} AND maxy >= ${y0} AND miny <= ${y1}`,
    );
    const scanned = await one(
      ds,
      `SELECT count(*) AS n FROM "${table}" WHERE ${live} AND ST_MaxX(shape) >= ${x0} AND ST_MinX(shape) <= ${x1} AND ST_MaxY(shape) >= ${y0} AND ST_MinY(shape) <= ${y1}`,
    );
    expect(inIndex).toEqual(scanned);
  }
}

/** The fids GDAL's spatial filter returns for a box. */
function filtered(ds: gdal.Dataset, table: string, box: [number, number, number, number]): number[] {
  const l = ds.layers.get(table);
  l.setSpatialFilter(...box);
  const fids: number[] = [];
  for (let f = l.features.first(); f; f = l.features.next()) fids.push(f.fid);
  l.setSpatialFilter(null);
  return fids.sort((a, b) => a - b);
}

beforeAll(async () => {
  db = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${SCHEMA}`);
  // Enough points for a three-level tree (over 51² leaves' worth), ids with gaps, and some null and empty shapes.
  await db.query(`CREATE TABLE ${SCHEMA}.pts (objectid integer PRIMARY KEY, label text, shape geometry(Point, 4326))`);
  await db.query(`SELECT setseed(0.25)`);
  await db.query(`INSERT INTO ${SCHEMA}.pts SELECT i * 3 + 7, 'p' || i,
      CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN ST_SetSRID('POINT EMPTY'::geometry, 4326)
           ELSE ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 180 - 90), 4326) END
    FROM generate_series(1, 140000) i`);
  await db.query(`CREATE TABLE ${SCHEMA}.polys (objectid integer PRIMARY KEY, label text, shape geometry(MultiPolygon, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.polys SELECT i, 'q' || i,
      CASE WHEN i % 50 = 0 THEN NULL ELSE ST_Multi(ST_Buffer(ST_SetSRID(ST_MakePoint(random() * 60 - 30, random() * 60 - 30), 4326), random() * 2, 3)) END
    FROM generate_series(1, 3000) i`);
  await db.query(`CREATE TABLE ${SCHEMA}.lines (objectid integer PRIMARY KEY, label text, shape geometry(MultiLineString, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.lines SELECT i, 'l' || i,
      ST_Multi(ST_MakeLine(ARRAY[ST_MakePoint(i * 0.01, 0.5), ST_MakePoint(i * 0.01 + 0.3, 0.9), ST_MakePoint(i * 0.01 - 0.2, 0.1)]))::geometry(MultiLineString, 4326)
    FROM generate_series(1, 500) i`);
  // Dense ids with holes (null shapes): the rowids go in id order, in several statements (gpkg-rtree's ROWIDS_PER_INSERT).
  await db.query(`CREATE TABLE ${SCHEMA}.dense (objectid integer PRIMARY KEY, label text, shape geometry(Point, 4326))`);
  await db.query(`INSERT INTO ${SCHEMA}.dense SELECT i, 'd' || i,
      CASE WHEN i % 7 = 0 THEN NULL ELSE ST_SetSRID(ST_MakePoint(random() * 20, random() * 20), 4326) END
    FROM generate_series(1, 25000) i`);
  await db.query(`ANALYZE ${SCHEMA}.pts`);
  pg = gdalPgConnection(process.env.TEST_DATABASE_URL!);
}, 120_000);

afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await db.end();
});

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'export-gpkg-rtree-'));
});

afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

it('rounds boxes outward to float32 as SQLite does', () => {
  for (const d of [0.1, -0.1, 1e-30, -123.456789, 179.99999999, 2 ** 24 + 1, -(2 ** 30) - 3, 5]) {
    expect(valueDown(d)).toBeLessThanOrEqual(d);
    expect(valueUp(d)).toBeGreaterThanOrEqual(d);
    expect(Math.fround(valueDown(d))).toBe(valueDown(d));
    expect(Math.fround(valueUp(d))).toBe(valueUp(d));
  }
  expect(valueDown(5)).toBe(5);
  expect(valueUp(5)).toBe(5);
});

it('packs the index of every layer: the entries and triggers GDAL would write, a sound tree, GDAL using it', async () => {
  const layers = [
    POINTS,
    POLYS,
    LINES,
    layer('pts', 'esriGeometryPoint', { id: 3, name: 'some', where: 'objectid % 5 = 0' }),
    layer('dense', 'esriGeometryPoint', { id: 4 }),
  ];
  for (const l of layers) expect(packsGpkgIndex({ layer: l, format: 'geopackage', target: null })).toBe(true);
  const out = await run('geopackage', layers);
  const tables = ['pts', 'polys', 'lines', 'some', 'dense'];
  const ref = await gdalReference(out.path, tables);
  const ds = await gdal.openAsync(out.path, 'r+');
  await exec(ds, `ATTACH DATABASE '${ref}' AS ref`);
  for (const t of tables) {
    await checkIndex(ds, t);
    const rtree = `rtree_${t}_shape`;
    for (const [a, b] of [
      ['main', 'ref'],
      ['ref', 'main'],
    ])
      expect(await one(ds, `SELECT count(*) AS n FROM (SELECT * FROM ${a}."${rtree}" EXCEPT SELECT * FROM ${b}."${rtree}")`)).toEqual({
        n: 0,
      });
    const sql = (db: string) =>
      `SELECT group_concat(name || ':' || sql, '|') AS s FROM (SELECT name, sql FROM ${db}.sqlite_master WHERE type = 'trigger' AND name LIKE 'rtree%' AND tbl_name = '${t}' ORDER BY name)`;
    const triggers = await one(ds, sql('main'));
    expect(String(triggers.s)).toContain(`rtree_${t}_shape_insert`);
    expect(triggers).toEqual(await one(ds, sql('ref')));
    const ext = (db: string) =>
      `SELECT group_concat(extension_name || definition || scope) AS e FROM ${db}.gpkg_extensions WHERE table_name = '${t}'`;
    expect(await one(ds, ext('main'))).toEqual(await one(ds, ext('ref')));
  }
  // Packed, not GDAL's (which fell back silently would pass the above): full nodes, so fewer than GDAL's inserts
  // leave; and the points' tree has four levels (2,687 leaves, 53 nodes above them, 2, the root), so its root says 3.
  for (const t of tables) {
    const nodes = (db: string) => one(ds, `SELECT count(*) AS n FROM ${db}."rtree_${t}_shape_node"`);
    expect(Number((await nodes('main')).n)).toBeLessThan(Number((await nodes('ref')).n));
  }
  expect(await one(ds, `SELECT hex(substr(data, 1, 2)) AS d FROM rtree_pts_shape_node WHERE nodeno = 1`)).toEqual({ d: '0003' });
  ds.close();

  // GDAL's spatial filter through the index finds what it finds through GDAL's own index.
  const mine = gdal.open(out.path);
  const theirs = gdal.open(ref);
  for (const [t, box] of [
    ['pts', [-10.5, 20.25, 3.5, 40]],
    ['polys', [-5, -5, 5, 5]],
    ['lines', [1, 0.6, 2, 0.7]],
  ] as const) {
    const fids = filtered(mine, t, [...box]);
    expect(fids.length).toBeGreaterThan(5);
    expect(fids).toEqual(filtered(theirs, t, [...box]));
  }
  mine.close();
  theirs.close();
}, 120_000);

it('keeps the index right when the GeoPackage is edited later (the triggers work)', async () => {
  const out = await run('geopackage', [POLYS]);
  const ds = gdal.open(out.path, 'r+');
  const l = ds.layers.get('polys');
  const added = new gdal.Feature(l);
  added.setGeometry(gdal.Geometry.fromWKT('MULTIPOLYGON(((100 50,101 50,101 51,100 50)))'));
  l.features.add(added);
  const fid = added.fid;
  expect(fid).toBe(3001);
  const moved = l.features.get(7);
  moved.setGeometry(gdal.Geometry.fromWKT('MULTIPOLYGON(((100.2 50.2,100.4 50.2,100.4 50.4,100.2 50.2)))'));
  l.features.set(moved);
  l.features.remove(8);
  const nulled = l.features.get(9);
  nulled.setGeometry(null);
  l.features.set(nulled);
  ds.close();
  const check = await gdal.openAsync(out.path);
  await checkIndex(check, 'polys');
  const inBox = await one(
    check,
    `SELECT group_concat(id) AS ids FROM (SELECT id FROM rtree_polys_shape WHERE minx >= 99 AND maxx <= 102 ORDER BY id)`,
  );
  expect(inBox).toEqual({ ids: `7,${fid}` });
  expect(await one(check, `SELECT count(*) AS n FROM rtree_polys_shape WHERE id IN (8, 9)`)).toEqual({ n: 0 });
  check.close();
});

it('an empty layer, and a layer only of null geometries, get an empty index', async () => {
  const empty = layer('pts', 'esriGeometryPoint', { name: 'none', where: '1=0' });
  const nulls = layer('polys', 'esriGeometryPolygon', { id: 1, name: 'nulls', where: 'shape IS NULL' });
  const out = await run('geopackage', [empty, nulls]);
  const ds = await gdal.openAsync(out.path);
  for (const t of ['none', 'nulls']) {
    await checkIndex(ds, t);
    expect(await one(ds, `SELECT count(*) AS n FROM rtree_${t}_shape`)).toEqual({ n: 0 });
  }
  expect(await one(ds, `SELECT count(*) AS n FROM nulls`)).toEqual({ n: 60 });
  ds.close();
});

it('leaves reprojected layers and layers without an OID to GDAL, which indexes them itself', async () => {
  expect(packsGpkgIndex({ layer: POINTS, format: 'geopackage', target: { srs: 'EPSG:3857', wkid: 3857 } })).toBe(false);
  expect(packsGpkgIndex({ layer: POINTS, format: 'sqlite', target: null })).toBe(false);
  const noOid = layer('lines', 'esriGeometryPolyline', { name: 'nooid', fields: [field('Label', 'esriFieldTypeString')] });
  expect(packsGpkgIndex({ layer: noOid, format: 'geopackage', target: null })).toBe(false);
  const out = await run('geopackage', [POLYS], { target: { srid: 3857 } });
  const ds = await gdal.openAsync(out.path);
  await checkIndex(ds, 'polys');
  expect((await one(ds, `SELECT max(maxx) AS x FROM rtree_polys_shape`)).x as number).toBeGreaterThan(1e5);
  ds.close();
  await rm(out.path);
  const plain = await run('geopackage', [noOid]);
  const ds2 = await gdal.openAsync(plain.path);
  await checkIndex(ds2, 'nooid');
  expect(await one(ds2, `SELECT count(*) AS n FROM rtree_nooid_shape`)).toEqual({ n: 500 });
  ds2.close();
});

/** The export's own GeoPackage of LINES, copied to `name` without its spatial index. */
async function bareLines(name: string): Promise<string> {
  const out = await run('geopackage', [LINES]);
  const bare = join(workDir, name);
  await copyFile(out.path, bare);
  const ds = await gdal.openAsync(bare, 'r+');
  await exec(ds, `SELECT DisableSpatialIndex('lines', 'shape')`);
  ds.close();
  return bare;
}

it("entries queried before the file is written (as the export does): packed, or GDAL's index when the rows changed after their snapshot", async () => {
  const bare = await bareLines('bare-early.gpkg');
  const ctx = { pg, sessionName: 'gpkg-rtree-early', scratch: workDir };
  const sessions = async () =>
    Number((await db.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'gpkg-rtree-early'`)).rows[0].n);
  const probe = join(workDir, 'probe-early.gpkg');
  await copyFile(bare, probe);
  expect(await addGpkgRtree(probe, { table: 'lines', source: LINES }, ctx, await startRtreeEntries(LINES, ctx))).toBe('packed');
  const packed = await gdal.openAsync(probe);
  await checkIndex(packed, 'lines');
  packed.close();
  // Entries from before an edit the file holds: the sums differ, and GDAL builds the index.
  const early = await startRtreeEntries(LINES, ctx);
  await db.query(`UPDATE ${SCHEMA}.lines SET shape = ST_Translate(shape, 0.000001, 0) WHERE objectid = 17`);
  try {
    const edited = await bareLines('edited-early.gpkg');
    expect(await addGpkgRtree(edited, { table: 'lines', source: LINES }, ctx, early)).toBe('gdal');
    const check = await gdal.openAsync(edited);
    await checkIndex(check, 'lines');
    check.close();
  } finally {
    await db.query(`UPDATE ${SCHEMA}.lines SET shape = ST_Translate(shape, -0.000001, 0) WHERE objectid = 17`);
  }
  // Entries never read (a translate that failed) end with their session (its backend leaves pg_stat_activity
  // shortly after the connection closes).
  await stopRtreeEntries(await startRtreeEntries(LINES, ctx));
  // Nor do entries handed over with a file that cannot be opened.
  await expect(
    addGpkgRtree(join(workDir, 'missing.gpkg'), { table: 'lines', source: LINES }, ctx, await startRtreeEntries(LINES, ctx)),
  ).rejects.toThrow();
  await waitFor('the entries sessions to end', async () => (await sessions()) === 0, 5000, 50);
});

it('falls back to GDAL when the rows changed since GDAL read them', async () => {
  // The export's own GeoPackage, written without an index, then the table edited before the index is added.
  const bare = await bareLines('bare.gpkg');
  const ctx = { pg, sessionName: 'gpkg-rtree-test', scratch: workDir };
  const probe = join(workDir, 'probe.gpkg');
  await copyFile(bare, probe);
  expect(await addGpkgRtree(probe, { table: 'lines', source: LINES }, ctx)).toBe('packed');
  await db.query(`UPDATE ${SCHEMA}.lines SET shape = ST_Translate(shape, 0.000001, 0) WHERE objectid = 17`);
  try {
    await copyFile(bare, probe);
    expect(await addGpkgRtree(probe, { table: 'lines', source: LINES }, ctx)).toBe('gdal');
    const check = await gdal.openAsync(probe);
    await checkIndex(check, 'lines');
    check.close();
  } finally {
    await db.query(`UPDATE ${SCHEMA}.lines SET shape = ST_Translate(shape, -0.000001, 0) WHERE objectid = 17`);
  }
  await db.query(`INSERT INTO ${SCHEMA}.lines VALUES (100000, 'new', 'MULTILINESTRING((1 1,2 2))')`);
  try {
    await copyFile(bare, probe);
    expect(await addGpkgRtree(probe, { table: 'lines', source: LINES }, ctx)).toBe('gdal');
  } finally {
    await db.query(`DELETE FROM ${SCHEMA}.lines WHERE objectid = 100000`);
  }
});

/**
 * Query replies for f=json, f=pjson and f=geojson are written by PostgreSQL; they must be the bytes the replies were
 * when JavaScript built them from rows. `reference` below is that earlier algorithm, kept here as the specification:
 * rows read through node-postgres (dates as epoch ms, GUIDs braced, big integers as doubles), GeoJSON from
 * ST_AsGeoJSON(…, 15) parsed and reshaped by geoJsonToEsri, and JSON.stringify over the lot. Every reply is compared
 * as text, so a drift in number formatting, key order, escaping, ring order or the paging flags fails here.
 */
import { DataSource } from 'typeorm';
import { geoJsonToEsri, GeoJson } from '../../src/layers/esri-geometry';
import { fieldInfo, LayerField } from '../../src/layers/layer-schema';
import { coordinatesOf, esriGeometry, jsCoordinates, jsonNumber } from '../../src/feature-server/query/json-sql';
import { get, post, uniq } from '../support/client';
import { withApp } from '../support/harness';

type Field = LayerField;
type Row = Record<string, unknown> & { __geom?: string | null; __centroid?: string | null; __oid: number };

const POINT_FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 200 },
  { name: 'small', type: 'esriFieldTypeSmallInteger' },
  { name: 'N', type: 'esriFieldTypeInteger' },
  { name: 'Big', type: 'esriFieldTypeBigInteger' },
  { name: 'R', type: 'esriFieldTypeSingle' },
  { name: 'D', type: 'esriFieldTypeDouble' },
  { name: 'T', type: 'esriFieldTypeDate' },
  { name: 'G', type: 'esriFieldTypeGUID' },
  { name: 'GID', type: 'esriFieldTypeGlobalID' },
];
const SHAPE_FIELDS = [
  { name: 'name', type: 'esriFieldTypeString', length: 50 },
  { name: 'D', type: 'esriFieldTypeDouble' },
];

/** The earlier row reader's column list. */
function selectColumn(f: Field): string {
  const c = `"${f.column}"`;
  const alias = `"${f.name}"`;
  if (f.type === 'esriFieldTypeDate') return `(extract(epoch from ${c}) * 1000)::float8 AS ${alias}`;
  if (f.type === 'esriFieldTypeGUID' || f.type === 'esriFieldTypeGlobalID') return `('{' || upper(${c}::text) || '}') AS ${alias}`;
  if (f.type === 'esriFieldTypeBigInteger') return `${c}::float8 AS ${alias}`;
  return `${c} AS ${alias}`;
}

/** Doubles of every kind: random bits, decimals of any length, powers of two, integers beyond 2^53. */
function randomDouble(i: number): number {
  const buf = Buffer.alloc(8);
  switch (i % 6) {
    case 0:
      for (let k = 0; k < 8; k++) buf[k] = Math.floor(Math.random() * 256);
      return buf.readDoubleLE(0);
    case 1:
      return (Math.random() - 0.5) * 10 ** (Math.floor(Math.random() * 48) - 24);
    case 2:
      return Number(((Math.random() - 0.5) * 400).toFixed(Math.floor(Math.random() * 18)));
    case 3:
      return Number(BigInt.asIntN(64, BigInt(Math.floor(Math.random() * 2 ** 32)) * BigInt(Math.floor(Math.random() * 2 ** 32))));
    case 4:
      return 2 ** (Math.floor(Math.random() * 2100) - 1074) * (Math.random() < 0.5 ? 1 : 1 + 2 ** -52);
    default:
      return (Math.random() - 0.5) * 10 ** (Math.floor(Math.random() * 10) - 5);
  }
}

describe('query replies built in PostgreSQL', () => {
  const t = withApp({ users: { pub: 'org_publisher' } });
  const { pub } = t.users;
  let url: string;
  let schema: string;
  let fieldsOf: Record<number, Field[]>;
  const MAX = 50;

  beforeAll(async () => {
    const created = await post(
      t.base,
      `content/users/${pub.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('eq'), maxRecordCount: MAX }), outputType: 'featureService' },
      pub.token,
    );
    url = created.body.serviceurl;
    const sr = { spatialReference: { wkid: 4326 } };
    const def = await post(
      url.replace('/rest/services/', '/rest/admin/services/'),
      'addToDefinition',
      {
        addToDefinition: JSON.stringify({
          layers: [
            { name: 'points', geometryType: 'esriGeometryPoint', fields: POINT_FIELDS, extent: sr },
            { name: 'lines', geometryType: 'esriGeometryPolyline', fields: SHAPE_FIELDS, extent: sr },
            { name: 'polygons', geometryType: 'esriGeometryPolygon', fields: SHAPE_FIELDS, extent: sr },
            {
              name: 'multipoints',
              geometryType: 'esriGeometryMultipoint',
              fields: SHAPE_FIELDS,
              extent: { spatialReference: { wkid: 3857 } },
            },
          ],
          tables: [{ name: 'table', fields: POINT_FIELDS }],
        }),
      },
      pub.token,
    );
    expect(def.body.success).toBe(true);
    const [svc] = await t.db.query(`SELECT schema_name FROM feature_services WHERE item_id = $1`, [created.body.itemId]);
    schema = svc.schema_name;
    const layers: { layer_id: number; table_name: string; fields: Field[] }[] = await t.db.query(
      `SELECT layer_id, table_name, fields FROM feature_layers WHERE service_item_id = $1`,
      [created.body.itemId],
    );
    fieldsOf = Object.fromEntries(layers.map((l) => [l.layer_id, l.fields]));
    const tbl = (id: number) => `"${schema}"."${layers.find((l) => l.layer_id === id)!.table_name}"`;

    // Values at the edges of what the reply writes: NaN and infinities (null in JSON), -0, magnitudes where JavaScript
    // and PostgreSQL switch notation, doubles beyond 2^53, reals, dates at the ends of the range, escapes and emoji.
    const points = `INSERT INTO ${tbl(0)} (name, small, n, big, r, d, t, g, shape) VALUES
      (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      ('quote " backslash \\ slash / controls ' || chr(1) || chr(8) || chr(9) || chr(10) || chr(12) || chr(13) || chr(31) || ' é ✓ 😀 ' || chr(8232),
        -32768, -2147483648, 9007199254740993, 0.1, 'NaN', 'epoch', '00000000-0000-0000-0000-000000000000', 'SRID=4326;POINT(0 0)'),
      ('', 32767, 2147483647, 9223372036854775807, 3.4e38, 'Infinity', '0001-01-01T00:00:00Z', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'SRID=4326;POINT(-0 1e-9)'),
      ('small', 0, 1, -9223372036854775808, 1e-40, '-Infinity', '9999-12-31T23:59:59.999999Z', 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d', 'SRID=4326;POINT(1e-7 -1e-12)'),
      ('exponents', 1, 2, 22841783698813288, 16777217, 1e-7, '2024-02-29T12:34:56.789123Z', NULL, 'SRID=4326;POINT(0.123456789012345678 -1.5e-6)'),
      ('more', 2, 3, 123, 1.5, 1e21, 'infinity', NULL, 'SRID=4326;POINT(179.99999999999997 -89.99999999999999)'),
      ('zero', 3, 4, 0, -0, '-0', '-infinity', NULL, 'SRID=4326;POINT(1e15 2e20)'),
      ('tiny', 4, 5, -1, 1e-30, 5e-324, '1969-12-31T23:59:59.999Z', NULL, 'SRID=4326;POINT(0.000001 0.0000009999999)'),
      ('wide', 5, 6, 2, 123456.7, 1.7976931348623157e308, '2001-09-09T01:46:40Z', NULL, 'SRID=4326;POINT(12.0000001 8.000000000000001)'),
      ('fraction', 6, 7, 3, 0.30000001, 0.30000000000000004, '1900-01-01T00:00:00.5Z', NULL, 'SRID=4326;POINT(-3.9999999999999996 4.000000000000001)'),
      ('empty', 7, 8, 4, 2.5, 2.5, 'epoch', NULL, 'SRID=4326;POINT EMPTY')`;
    await t.db.query(points);
    // Ordinary rows to page through, with duplicate sort keys so the object id decides the order within them.
    await t.db.query(
      `INSERT INTO ${tbl(0)} (name, small, n, big, r, d, t, g, shape)
       SELECT 'p' || (g % 7), g % 5, g, g * 1000003, (g / 7.0)::real, g / 3.0, timestamptz '2020-01-01' + g * interval '1 hour 1.5 second',
              md5(g::text)::uuid, ST_SetSRID(ST_MakePoint(sin(g) * 180, cos(g) * 85), 4326)
         FROM generate_series(1, 120) g`,
    );
    await t.db.query(
      `INSERT INTO ${tbl(4)} (name, n, d, t) SELECT 'row ' || g, g, g * 1.25, 'epoch'::timestamptz + g * interval '1 day' FROM generate_series(1, 8) g`,
    );
    await t.db.query(
      `INSERT INTO ${tbl(1)} (name, d, shape) VALUES
        ('two parts', 1.5, 'SRID=4326;MULTILINESTRING((0 0, 1e-7 1, 2.5 2.25), (10 10, 11.123456789012345 -12))'),
        ('empty', NULL, 'SRID=4326;MULTILINESTRING EMPTY'),
        ('none', 2, NULL),
        ('one', 3, 'SRID=4326;MULTILINESTRING((-179.5 -45.25, 179.5 45.75))')`,
    );
    // Rings wound both ways (ArcGIS wants exteriors clockwise, GeoJSON counter-clockwise), holes, several parts.
    await t.db.query(
      `INSERT INTO ${tbl(2)} (name, d, shape) VALUES
        ('hole', 1, 'SRID=4326;MULTIPOLYGON(((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2)))'),
        ('two parts', 2, 'SRID=4326;MULTIPOLYGON(((0 0, 0 1, 1 1, 1 0, 0 0)), ((5 5, 6 5, 6 6, 5 6, 5 5), (5.2 5.2, 5.4 5.2, 5.4 5.4, 5.2 5.2), (5.6 5.6, 5.8 5.6, 5.8 5.8, 5.6 5.6)))'),
        ('empty', 3, 'SRID=4326;MULTIPOLYGON EMPTY'),
        ('empty part', 4, 'SRID=4326;MULTIPOLYGON(EMPTY, ((1 1, 2 1, 2 2, 1 1)))'),
        ('tiny', 5, 'SRID=4326;MULTIPOLYGON(((0 0, 1e-7 0, 1e-7 1e-7, 0 0)))'),
        ('null', 6, NULL)`,
    );
    await t.db.query(
      `INSERT INTO ${tbl(3)} (name, d, shape) VALUES
        ('mercator', 1, 'SRID=3857;MULTIPOINT((20037508.342789244 -20037508.342789244), (0 0), (-1113194.9079327357 1118889.9748579597))'),
        ('empty', 2, 'SRID=3857;MULTIPOINT EMPTY')`,
    );
  });

  let randomLayer: number;
  const RANDOM_ROWS = 500;

  beforeAll(async () => {
    const more = await post(
      url.replace('/rest/services/', '/rest/admin/services/'),
      'addToDefinition',
      { addToDefinition: JSON.stringify({ layers: [{ name: 'random', geometryType: 'esriGeometryPoint', fields: POINT_FIELDS }] }) },
      pub.token,
    );
    randomLayer = more.body.layers[0].id;
    const [{ table_name }] = await t.db.query(
      `SELECT table_name FROM feature_layers l JOIN feature_services s ON s.item_id = l.service_item_id WHERE s.schema_name = $1 AND l.layer_id = $2`,
      [schema, randomLayer],
    );
    fieldsOf[randomLayer] = (
      await t.db.query(
        `SELECT fields FROM feature_layers l JOIN feature_services s ON s.item_id = l.service_item_id WHERE s.schema_name = $1 AND l.layer_id = $2`,
        [schema, randomLayer],
      )
    )[0].fields;
    const n = RANDOM_ROWS;
    const doubles = () =>
      Array.from({ length: n }, (_, i) => randomDouble(i * 7 + 3)).map((x) =>
        Number.isFinite(x) && Math.abs(x) < 1e300 ? String(x) : '0',
      );
    // Microseconds from 1970 over the whole range of years, with the edges of the short cuts for dates (2^43 ms, 4e9 s)
    // among them.
    const edges = [8.7e15, 8796093022208000, 8796093022207999, 4e15, 4e15 - 1].flatMap((u) => [u, -u, u + 1, -u - 1]);
    const micros = Array.from({ length: n }, (_, i) =>
      String(i < edges.length ? edges[i] : Math.round((Math.random() * 2 - 0.6) * 2.5e17 * Math.random() ** (i % 3))),
    );
    const reals = Array.from({ length: n }, () => String(Math.fround((Math.random() - 0.5) * 10 ** (Math.floor(Math.random() * 60) - 30))));
    const bigs = Array.from({ length: n }, (_, i) =>
      String(BigInt.asIntN(64, BigInt(Math.floor(Math.random() * 2 ** 32)) * BigInt(Math.floor(Math.random() * 2 ** (i % 33))))),
    );
    await t.db.query(
      `INSERT INTO "${schema}"."${table_name}" (d, big, r, t, shape)
       SELECT d, big, r, 'epoch'::timestamptz + make_interval(secs => us / 1000000) + (us % 1000000) * interval '1 microsecond', ST_SetSRID(ST_MakePoint(x, y), 4326)
         FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::bigint[], $5::real[], $6::bigint[]) AS u(x, y, d, big, r, us)`,
      [doubles(), doubles(), doubles(), bigs, reals, micros],
    );
  });

  /** The reply as the earlier algorithm wrote it, for the query `p` on `layer`. */
  async function reference(layer: number, p: Record<string, string>): Promise<string> {
    const all = fieldsOf[layer];
    const [l] = await t.db.query(
      `SELECT * FROM feature_layers l JOIN feature_services s ON s.item_id = l.service_item_id WHERE s.schema_name = $1 AND l.layer_id = $2`,
      [schema, layer],
    );
    const byName = new Map(all.map((f) => [f.column, f]));
    const fields =
      !p.outFields || p.outFields === '*' ? all : [...new Set(p.outFields.split(',').map((n) => byName.get(n.trim().toLowerCase())!))];
    const geojson = p.f === 'geojson';
    const outSrid = geojson ? 4326 : p.outSR ? (p.outSR === '102100' ? 3857 : Number(p.outSR)) : l.srid;
    const withGeometry = p.returnGeometry !== 'false' && !!l.geometry_type;
    const limit = Math.min(Number(p.resultRecordCount ?? MAX), MAX);
    const cols = fields.map(selectColumn);
    // geometryPrecision, maxAllowableOffset (lines and polygons) and returnCentroid (polygons), as PostGIS has them.
    const digits = p.geometryPrecision && Number(p.geometryPrecision) < 15 ? Number(p.geometryPrecision) : 15;
    const project = (g: string) => (outSrid === l.srid ? g : `ST_Transform(${g}, ${outSrid})`);
    const lines = l.geometry_type === 'esriGeometryPolygon' || l.geometry_type === 'esriGeometryPolyline';
    if (withGeometry) {
      const geom =
        Number(p.maxAllowableOffset) > 0 && lines
          ? `ST_Simplify(${project('shape')}, ${Number(p.maxAllowableOffset)}, true)`
          : project('shape');
      // Rings are wound for the format; lines keep their direction (PostGIS 3.3's ST_ForcePolygonCCW reverses them).
      const wound = l.geometry_type !== 'esriGeometryPolygon' ? geom : `${geojson ? 'ST_ForcePolygonCCW' : 'ST_ForcePolygonCW'}(${geom})`;
      cols.push(`ST_AsGeoJSON(${wound}, ${digits}) AS __geom`);
    }
    const centroids = p.returnCentroid === 'true' && l.geometry_type === 'esriGeometryPolygon';
    if (centroids) cols.push(`ST_AsGeoJSON(${project('ST_PointOnSurface(shape)')}, ${digits}) AS __centroid`);
    cols.push('objectid AS __oid');
    const order = (
      p.orderByFields ? p.orderByFields.split(',').map((o) => (/ desc$/i.test(o) ? `${o} NULLS FIRST` : `${o} NULLS LAST`)) : []
    ).concat('objectid');
    const rows: Row[] = await t.db.query(
      `SELECT ${cols.join(', ')} FROM "${schema}"."${l.table_name}" WHERE ${p.sqlWhere ?? 'true'} ORDER BY ${order.join(', ')} LIMIT ${limit + 1} OFFSET ${Number(p.resultOffset ?? 0)}`,
    );
    const exceeded = rows.length > limit;
    const page = rows.slice(0, limit);
    const attributes = (r: Row) => Object.fromEntries(fields.map((f) => [f.name, r[f.name]]));
    const body = geojson
      ? {
          type: 'FeatureCollection',
          ...(exceeded ? { properties: { exceededTransferLimit: true } } : {}),
          features: page.map((r) => ({
            type: 'Feature',
            id: r.__oid,
            geometry: withGeometry && r.__geom ? JSON.parse(r.__geom) : null,
            properties: attributes(r),
          })),
        }
      : {
          objectIdFieldName: 'OBJECTID',
          uniqueIdField: { name: 'OBJECTID', isSystemMaintained: true },
          globalIdFieldName: all.find((f) => f.type === 'esriFieldTypeGlobalID')?.name ?? '',
          ...(l.geometry_type
            ? { geometryType: l.geometry_type, spatialReference: { wkid: Number(p.outSR ?? l.srid), latestWkid: outSrid } }
            : {}),
          fields: fields.map(fieldInfo),
          ...(exceeded ? { exceededTransferLimit: true } : {}),
          features: page.map((r) => {
            const c = r.__centroid ? (JSON.parse(r.__centroid as string) as { coordinates: number[] }).coordinates : [];
            return {
              attributes: attributes(r),
              ...(withGeometry ? { geometry: r.__geom ? geoJsonToEsri(JSON.parse(r.__geom) as GeoJson) : null } : {}),
              ...(centroids && c.length ? { centroid: { x: c[0], y: c[1] } } : {}),
            };
          }),
        };
    return JSON.stringify(body, null, p.f === 'pjson' ? 2 : undefined);
  }

  async function same(layer: number, p: Record<string, string>) {
    const { sqlWhere, ...params } = p;
    void sqlWhere;
    const reply = await get(`${url}/${layer}`, 'query', { where: '1=1', outFields: '*', ...params }, pub.token);
    expect(reply.body?.error).toBeUndefined();
    expect(reply.text).toBe(await reference(layer, p));
    return reply;
  }

  const FORMATS = ['json', 'geojson', 'pjson'];

  it.each(FORMATS)('f=%s: points with every field type and edge values, all fields, first page', async (f) => {
    const r = await same(0, { f, resultRecordCount: '12' });
    expect(r.text).toContain(f === 'geojson' ? '"properties":{"exceededTransferLimit":true}' : 'exceededTransferLimit');
  });

  it.each(FORMATS)('f=%s: pages through the points in two sort orders, up to the last page', async (f) => {
    for (const offset of [0, 50, 100, 125, 200]) {
      await same(0, { f, resultOffset: String(offset), orderByFields: 'd DESC' });
      await same(0, { f, resultOffset: String(offset), resultRecordCount: '7', orderByFields: 'NAME,small desc' });
    }
  });

  it.each(FORMATS)('f=%s: pages in object id order both ways, filtered on the object id alone, up to and past the end', async (f) => {
    // Pages that skip along the object id's index rather than reading the skipped rows.
    const ids = [3, 5, 8, 13, 21, 34, 55, 89, 120, 130];
    for (const offset of [0, 1, 40, 125, 131, 140]) {
      await same(0, { f, resultOffset: String(offset), resultRecordCount: '40' });
      await same(0, { f, resultOffset: String(offset), resultRecordCount: '40', orderByFields: 'OBJECTID DESC' });
      await same(0, { f, resultOffset: String(offset), resultRecordCount: '40', orderByFields: 'objectid' });
      await same(0, {
        f,
        resultOffset: String(offset),
        where: 'OBJECTID > 10 AND OBJECTID <= 100',
        sqlWhere: 'objectid > 10 AND objectid <= 100',
      });
    }
    for (const offset of [0, 3, 9, 10])
      for (const orderByFields of ['OBJECTID', 'OBJECTID DESC'])
        await same(0, {
          f,
          resultOffset: String(offset),
          resultRecordCount: '4',
          objectIds: ids.join(','),
          orderByFields,
          sqlWhere: `objectid IN (${ids})`,
        });
  });

  it.each(FORMATS)('f=%s: an outFields subset in its own order and case, and returnGeometry=false', async (f) => {
    await same(0, { f, outFields: 't,NAME,big, n', resultRecordCount: '20' });
    await same(0, { f, outFields: 'GID,R', returnGeometry: 'false', resultRecordCount: '20' });
  });

  it.each(['json', 'pjson'])('f=%s: reprojected to 3857 and to 102100, and the 3857 layer back to 4326', async (f) => {
    // Rows 11 and on: the edge rows above hold coordinates no projection takes.
    await same(0, { f, outSR: '3857', where: 'OBJECTID > 10', sqlWhere: 'objectid > 10', resultRecordCount: '30' });
    await same(0, { f, outSR: '102100', where: 'OBJECTID > 10', sqlWhere: 'objectid > 10', resultRecordCount: '30' });
    await same(3, { f, outSR: '4326' });
  });

  it.each(FORMATS)('f=%s: lines, polygons with holes and several parts, multipoints, empty and null shapes', async (f) => {
    const lines = await same(1, { f });
    await same(2, { f });
    await same(3, { f });
    // A line comes back in the direction it was stored, in every format.
    const first = (lines.body as { features: { geometry: { paths?: number[][][]; coordinates?: number[][][] } }[] }).features[0].geometry;
    expect((first.paths ?? first.coordinates)![0]).toEqual([
      [0, 0],
      [1e-7, 1],
      [2.5, 2.25],
    ]);
  });

  it.each(FORMATS)('f=%s: a table, and a page past the end', async (f) => {
    await same(4, { f });
    await same(4, { f, resultOffset: '100' });
    await same(2, { f, where: 'd > 100', sqlWhere: 'd > 100' });
  });

  it.each(['json', 'pjson'])('f=%s: returnCentroid, maxAllowableOffset and geometryPrecision, alone and together', async (f) => {
    await same(2, { f, returnCentroid: 'true' });
    await same(2, { f, returnCentroid: 'true', returnGeometry: 'false' });
    await same(2, { f, returnCentroid: 'true', outSR: '3857', geometryPrecision: '2' });
    await same(2, { f, maxAllowableOffset: '0.5', geometryPrecision: '3', returnCentroid: 'true' });
    await same(1, { f, maxAllowableOffset: '1.5' });
    await same(3, { f, geometryPrecision: '1', maxAllowableOffset: '10' });
    await same(0, { f, geometryPrecision: '4', resultRecordCount: '30' });
    await same(0, { f, geometryPrecision: '0', outSR: '3857', where: 'OBJECTID > 10', sqlWhere: 'objectid > 10' });
  });

  it('f=geojson: maxAllowableOffset and geometryPrecision', async () => {
    await same(1, { f: 'geojson', maxAllowableOffset: '1.5', geometryPrecision: '5' });
    await same(2, { f: 'geojson', maxAllowableOffset: '0.5' });
    await same(0, { f: 'geojson', geometryPrecision: '3', resultRecordCount: '30' });
  });

  it('f=json: random point coordinates of every magnitude with fewer decimals', async () => {
    for (const geometryPrecision of ['0', '6', '12'])
      for (let offset = 0; offset < RANDOM_ROWS; offset += MAX * 2)
        await same(randomLayer, { f: 'json', resultOffset: String(offset), outFields: 'OBJECTID', geometryPrecision });
  });

  it.each(['json', 'geojson'])('f=%s: random doubles, dates, big integers, reals and point coordinates of every magnitude', async (f) => {
    for (let offset = 0; offset < RANDOM_ROWS; offset += MAX)
      await same(randomLayer, { f, resultOffset: String(offset), outFields: 'OBJECTID,D,T,Big,R' });
  });

  it('f=json and f=geojson keep their content types and caching headers', async () => {
    for (const f of ['json', 'geojson']) {
      const r = await get(`${url}/0`, 'query', { f, where: '1=1', outFields: '*' }, pub.token);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(r.headers.get('etag')).toBeNull();
      expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
    }
  });

  /** The number and coordinate printers alone, over values no hand-written row would reach. */
  describe('printing numbers as JavaScript does', () => {
    let db: DataSource;
    beforeAll(() => {
      db = t.db;
    });

    const sample = (n: number) =>
      [
        ...Array.from({ length: n }, (_, i) => randomDouble(i)),
        0,
        -0,
        1e-4,
        9.999999999999999e-5,
        1e15,
        999999999999999.9,
        1e21,
        1e-6,
        1e-7,
        5e-324,
        Number.MAX_VALUE,
        2 ** 53,
        2 ** 63,
        -(2 ** 70),
      ].filter(Number.isFinite);

    it('writes doubles, and reals read through their text, as JSON.stringify does', async () => {
      const xs = sample(30000);
      const rows: { j: string }[] = await db.query(
        `SELECT ${jsonNumber('v')} AS j FROM unnest($1::float8[]) WITH ORDINALITY AS u(v, i) ORDER BY i`,
        [xs.map(String)],
      );
      expect(rows.map((r) => r.j)).toEqual(xs.map((x) => JSON.stringify(x)));
      const special: { j: string }[] = await db.query(
        `SELECT ${jsonNumber('v')} AS j FROM unnest('{NaN,Infinity,-Infinity}'::float8[]) WITH ORDINALITY AS u(v, i) ORDER BY i`,
      );
      expect(special.map((r) => r.j)).toEqual(['null', 'null', 'null']);
      const reals: { raw: number; j: string }[] = await db.query(
        `SELECT v AS raw, ${jsonNumber('v::text::float8')} AS j FROM (SELECT x::real AS v, i FROM unnest($1::float8[]) WITH ORDINALITY AS u(x, i) WHERE x = 0 OR abs(x) BETWEEN 1e-37 AND 3e38) s ORDER BY i`,
        [xs.map(String)],
      );
      expect(reals.map((r) => r.j)).toEqual(reals.map((r) => JSON.stringify(r.raw)));
    });

    it('writes coordinates as JSON.stringify wrote the parsed GeoJSON, for points and ArcGIS points', async () => {
      const xs = sample(30000).filter((x) => Math.abs(x) < 1e300);
      const rows: { g: string; coords: string; esri: string }[] = await db.query(
        `SELECT g, coords, ${esriGeometry('esriGeometryPoint', 'coords')} AS esri
           FROM (SELECT g, i, ${jsCoordinates('c')} AS coords
                   FROM (SELECT g, i, ${coordinatesOf('g')} AS c
                           FROM (SELECT ST_AsGeoJSON(ST_MakePoint(x, y), 15, 0) AS g, i
                                   FROM unnest($1::float8[], $2::float8[]) WITH ORDINALITY AS u(x, y, i) OFFSET 0) a OFFSET 0) b OFFSET 0) c
          ORDER BY i`,
        [xs.map(String), xs.map(String).reverse()],
      );
      const expected = rows.map((r) => {
        const g = JSON.parse(r.g) as GeoJson & { coordinates: number[] };
        return { coords: JSON.stringify(g.coordinates), esri: JSON.stringify(geoJsonToEsri(g)) };
      });
      expect(rows.map((r) => ({ coords: r.coords, esri: r.esri }))).toEqual(expected);
    });
  });
});

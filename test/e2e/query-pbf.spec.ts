/**
 * Query replies with f=pbf: Esri's FeatureCollection protocol buffer. The point layer is read back with the
 * arcgis-rest-js client's own decoder (queryFeatures with f=pbf-as-arcgis); quantized geometry, which that decoder
 * nests differently from ArcGIS JSON for polygons with holes, is read with the schema's decoder and turned back into
 * map coordinates here. Both are compared with what f=json answers for the same query.
 */
import { queryFeatures } from '@esri/arcgis-rest-feature-service';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FEATURE_DB } from '../../src/core/database/feature-database.module';
import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { createHostedService, get, post, Reply } from '../support/client';
import { square } from '../support/rings';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

const JAN_1_2024 = Date.UTC(2024, 0, 1);
const POINT_FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 40 },
  { name: 'Visits', type: 'esriFieldTypeInteger' },
  { name: 'Floor', type: 'esriFieldTypeSmallInteger' },
  { name: 'Score', type: 'esriFieldTypeDouble' },
  { name: 'Ratio', type: 'esriFieldTypeSingle' },
  { name: 'Seen', type: 'esriFieldTypeDate' },
  { name: 'Big', type: 'esriFieldTypeBigInteger' },
  { name: 'Tag', type: 'esriFieldTypeGUID' },
];
const POINTS = 25;

function point(i: number) {
  return {
    attributes: {
      Name: i % 7 === 3 ? null : `point ${i} – Zürich ✓`,
      Visits: i % 5 === 4 ? null : i * 1000 - 7000,
      Floor: -i,
      Score: i % 6 === 5 ? null : i / 3,
      Ratio: 0.5 + i,
      Seen: i % 4 === 3 ? null : JAN_1_2024 + i * 3_600_000,
      Big: 2 ** 40 + i,
      Tag: i % 3 ? `{0000000${i % 10}-1111-2222-3333-444455556666}` : null,
    },
    geometry: { x: -170 + i * 13.37, y: -80 + i * 6.4321, spatialReference: { wkid: 4326 } },
  };
}

/** Values at the edges of what a page carries: numbers JSON has no text for, -0, extremes, escapes, rounding of dates. */
const EDGE_FIELDS = [
  { name: 'Name', type: 'esriFieldTypeString', length: 60 },
  { name: 'Score', type: 'esriFieldTypeDouble' },
  { name: 'Ratio', type: 'esriFieldTypeSingle' },
  { name: 'Seen', type: 'esriFieldTypeDate' },
  { name: 'Big', type: 'esriFieldTypeBigInteger' },
];
const EDGE_ROWS = `
  ('quote " backslash \\ ' || chr(1) || chr(10) || ' é ✓ 😀 ' || chr(8232), 'NaN', 'NaN', '2024-02-29T12:34:56.7895Z', 9007199254740993, 'SRID=4326;POINT(1 2)'),
  ('', 'Infinity', 'Infinity', '1969-12-31T23:59:59.9995Z', -9223372036854775808, 'SRID=4326;POINT(3 4)'),
  (NULL, '-Infinity', '-Infinity', '0001-01-01T00:00:00Z', 0, NULL),
  ('-0', '-0', 3.4e38, '9999-12-31T23:59:59.999999Z', 1, 'SRID=4326;POINT(5 6)'),
  ('tiny', 5e-324, 1e-40, NULL, NULL, 'SRID=4326;POINT(7 8)'),
  ('huge', 1.7976931348623157e308, 16777217, 'epoch', 2, 'SRID=4326;POINT(9 10)')`;

/** Polygons near 10°E 50°N: one with a hole, one of two parts, one with many vertices a hair apart, one speck. */
const POLYGONS = [
  { attributes: { Label: 'holed' }, geometry: { rings: [square(10, 50, 1), square(10.25, 50.25, 0.5).reverse()] } },
  { attributes: { Label: 'two parts' }, geometry: { rings: [square(12, 50, 0.5), square(13, 50, 0.5)] } },
  {
    attributes: { Label: 'dense' },
    geometry: {
      rings: [[[10, 52], ...Array.from({ length: 50 }, (_, i) => [10 + i * 1e-6, 53]), [11, 53], [11, 52], [10, 52]]],
    },
  },
  { attributes: { Label: 'speck' }, geometry: { rings: [square(14, 50, 1e-6)] } },
];
const VIEW = { xmin: 9, ymin: 49, xmax: 15, ymax: 54 };

/** Map coordinates of a decoded geometry: parts from `lengths`, every part's deltas summed from its first vertex. */
function parts(g: { lengths?: number[]; coords?: number[] }, t: any): number[][][] {
  const coords = g.coords ?? [];
  const lengths = g.lengths?.length ? g.lengths : [coords.length / 2];
  const out: number[][][] = [];
  let i = 0;
  for (const n of lengths) {
    const part: number[][] = [];
    let x = 0;
    let y = 0;
    for (let k = 0; k < n; k++, i += 2) {
      x = k ? x + coords[i] : coords[i];
      y = k ? y + coords[i + 1] : coords[i + 1];
      const sy = t.quantizeOriginPostion === 'lowerLeft' ? 1 : -1; // absent: upperLeft, the zero
      part.push([t.translate.xTranslate + x * t.scale.xScale, t.translate.yTranslate + sy * y * t.scale.yScale]);
    }
    out.push(part);
  }
  return out;
}

function expectNear(actual: number[][][], expected: number[][][], tolerance: number) {
  expect(actual.map((p) => p.length)).toEqual(expected.map((p) => p.length));
  actual.forEach((p, i) =>
    p.forEach(([x, y], k) => {
      expect(Math.abs(x - expected[i][k][0])).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(y - expected[i][k][1])).toBeLessThanOrEqual(tolerance);
    }),
  );
}

async function pbf(url: string, params: Record<string, string | number | boolean>, token: string) {
  const res = await fetch(`${url}/query?${new URLSearchParams({ ...params, f: 'pbf', token } as Record<string, string>)}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-protobuf');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
  return { bytes, message: decodeFeatureCollection(bytes) as any };
}

describe('query with f=pbf', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let serviceUrl: string;
  let points: string;
  let polygons: string;
  let sparse: string;
  let edges: string;

  beforeAll(async () => {
    const service = await createHostedService(t.base, owner, [
      { name: 'Points', geometryType: 'esriGeometryPoint', fields: POINT_FIELDS },
      { name: 'Polygons', geometryType: 'esriGeometryPolygon', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
      { name: 'Sparse', geometryType: 'esriGeometryPoint', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
      { name: 'Edges', geometryType: 'esriGeometryPoint', fields: EDGE_FIELDS },
    ]);
    serviceUrl = service.serviceurl;
    points = `${serviceUrl}/0`;
    polygons = `${serviceUrl}/1`;
    sparse = `${serviceUrl}/2`;
    edges = `${serviceUrl}/3`;
    // Points no client can add: no geometry, an empty one; and points half a pixel past the grid (below), which the grid
    // rounds to the even pixel.
    const table = async (id: number) => {
      const [l] = await t.db.query(
        `SELECT s.schema_name, l.table_name FROM feature_services s JOIN feature_layers l ON l.service_item_id = s.item_id
          WHERE s.item_id = $1 AND l.layer_id = $2`,
        [service.itemId, id],
      );
      return `"${l.schema_name}"."${l.table_name}"`;
    };
    await t.db.query(`INSERT INTO ${await table(3)} (name, score, ratio, seen, big, shape) VALUES ${EDGE_ROWS}`);
    await t.db.query(
      `INSERT INTO ${await table(2)} (label, shape) VALUES ('none', NULL), ('empty', 'SRID=4326;POINT EMPTY'),
        ('halves', 'SRID=4326;POINT(2.5 -3.5)'), ('more halves', 'SRID=4326;POINT(3.5 -2.5)'), ('plain', 'SRID=4326;POINT(10.25 -20.75)')`,
    );
    const added = [
      await post(points, 'addFeatures', { features: JSON.stringify(Array.from({ length: POINTS }, (_, i) => point(i))) }, owner.token),
      await post(polygons, 'addFeatures', { features: JSON.stringify(POLYGONS) }, owner.token),
    ];
    for (const r of added) expect(r.body.addResults.every((a: any) => a.success)).toBe(true);
  });

  it('is listed in supportedQueryFormats of the service and its layers', async () => {
    expect((await get(serviceUrl, '', {}, owner.token)).body.supportedQueryFormats).toBe('JSON, geoJSON, PBF');
    expect((await get(points, '', {}, owner.token)).body.supportedQueryFormats).toBe('JSON, geoJSON, PBF');
  });

  it('gives the arcgis-rest-js pbf decoder the features f=json gives, typed, with nulls', async () => {
    const params = { where: '1=1', outFields: '*', orderByFields: 'Visits DESC' };
    const json = (await get(points, 'query', params, owner.token)).body;
    const decoded: any = await queryFeatures({ url: points, f: 'pbf-as-arcgis', params: { ...params, token: owner.token } });
    expect(decoded.objectIdFieldName).toBe('OBJECTID');
    expect(decoded.geometryType).toBe('esriGeometryPoint');
    expect(decoded.spatialReference).toEqual({ wkid: 4326, latestWkid: 4326 });
    expect(decoded.fields.map((f: any) => [f.name, f.type, f.alias])).toEqual(json.fields.map((f: any) => [f.name, f.type, f.alias]));
    expect(decoded.features).toHaveLength(POINTS);
    decoded.features.forEach((f: any, i: number) => {
      const j = json.features[i];
      // Single precision on both sides; everything else exactly.
      expect({ ...f.attributes, Ratio: Math.fround(f.attributes.Ratio) }).toEqual({
        ...j.attributes,
        Ratio: Math.fround(j.attributes.Ratio),
      });
      // Without quantizationParameters the grid is 1e-9 degree: within half of that.
      expect(Math.abs(f.geometry.x - j.geometry.x)).toBeLessThanOrEqual(5e-10);
      expect(Math.abs(f.geometry.y - j.geometry.y)).toBeLessThanOrEqual(5e-10);
    });
  });

  it('quantizes in view mode: whole pixels from the upper left, the same rings as f=json within half a pixel', async () => {
    const tolerance = 0.001;
    const quantizationParameters = JSON.stringify({ mode: 'view', originPosition: 'upperLeft', tolerance, extent: VIEW });
    const { message } = await pbf(
      polygons,
      { where: "Label <> 'speck' AND Label <> 'dense'", outFields: '*', quantizationParameters },
      owner.token,
    );
    const r = message.queryResult.featureResult;
    // upperLeft is the enum's zero, which proto3 leaves out.
    expect(r.transform).toEqual({
      scale: { xScale: tolerance, yScale: tolerance },
      translate: { xTranslate: VIEW.xmin, yTranslate: VIEW.ymax },
    });
    expect(r.geometryType).toBe('esriGeometryTypePolygon');
    const json = (await get(polygons, 'query', { where: "Label <> 'speck' AND Label <> 'dense'", outFields: '*' }, owner.token)).body;
    expect(r.features).toHaveLength(2);
    r.features.forEach((f: any, i: number) => {
      expect(f.geometry.coords.every(Number.isInteger)).toBe(true);
      expect(f.attributes.map((a: any) => a.stringValue ?? a.uintValue)).toEqual([
        json.features[i].attributes.OBJECTID,
        json.features[i].attributes.Label,
      ]);
      expectNear(parts(f.geometry, r.transform), json.features[i].geometry.rings, tolerance / 2 + 1e-12);
    });
    // The first vertex of the holed square (10, 50) is 1000 pixels right of and 4000 below the upper left corner.
    expect(r.features[0].geometry.coords.slice(0, 2)).toEqual([1000, 4000]);
  });

  it('quantizes from the lower left when asked', async () => {
    const quantizationParameters = JSON.stringify({ mode: 'view', originPosition: 'lowerLeft', tolerance: 0.5, extent: VIEW });
    const { message } = await pbf(polygons, { where: "Label = 'holed'", quantizationParameters }, owner.token);
    const r = message.queryResult.featureResult;
    expect(r.transform.quantizeOriginPostion).toBe('lowerLeft');
    expect(r.transform.translate).toEqual({ xTranslate: VIEW.xmin, yTranslate: VIEW.ymin });
    expect(r.features[0].geometry.coords.slice(0, 2)).toEqual([2, 2]);
  });

  it('drops vertices that fall on the pixel before them, and parts and geometries with too few left', async () => {
    const quantizationParameters = JSON.stringify({ mode: 'view', originPosition: 'upperLeft', tolerance: 0.01, extent: VIEW });
    const { message } = await pbf(
      polygons,
      { where: "Label IN ('dense', 'speck')", outFields: 'Label', quantizationParameters },
      owner.token,
    );
    const [dense, speck] = message.queryResult.featureResult.features;
    // 54 vertices, of which the 50 along the top edge share one pixel: the closed ring keeps 5.
    expect(dense.geometry.lengths).toEqual([5]);
    expect(speck.attributes).toEqual([{ stringValue: 'speck' }]);
    expect(speck.geometry).toBeUndefined();
  });

  it('writes points on the grid as quantized f=json does, and no geometry for a point that is missing or empty', async () => {
    const extent = { xmin: 0, ymin: -100, xmax: 100, ymax: 0 };
    for (const originPosition of ['upperLeft', 'lowerLeft']) {
      const quantizationParameters = JSON.stringify({ mode: 'view', originPosition, tolerance: 1, extent });
      const params = { where: '1=1', outFields: 'Label', orderByFields: 'OBJECTID', quantizationParameters };
      const json = (await get(sparse, 'query', params, owner.token)).body;
      const r = (await pbf(sparse, params, owner.token)).message.queryResult.featureResult;
      expect(r.features.map((f: any) => f.attributes[0].stringValue)).toEqual(['none', 'empty', 'halves', 'more halves', 'plain']);
      expect(r.features.map((f: any) => f.geometry?.coords)).toEqual(
        json.features.map((f: any) => (f.geometry ? [f.geometry.x, f.geometry.y] : undefined)),
      );
      // From the upper left, rows count down from y = 0; from the lower left, up from y = -100. Halves go to the even pixel.
      const expected =
        originPosition === 'upperLeft'
          ? [
              [2, 4],
              [4, 2],
              [10, 21],
            ]
          : [
              [2, 96],
              [4, 98],
              [10, 79],
            ];
      expect(r.features.slice(2).map((f: any) => f.geometry.coords)).toEqual(expected);
      expect(r.features.slice(0, 2).map((f: any) => f.geometry)).toEqual([undefined, undefined]);
    }
  });

  it('carries NaN, infinities, -0, extremes, escaped text and rounded dates through the page', async () => {
    const { message } = await pbf(edges, { where: '1=1', outFields: '*', orderByFields: 'OBJECTID' }, owner.token);
    const r = message.queryResult.featureResult;
    const value = (v: any) => (v === undefined ? undefined : Object.values(v)[0]);
    const rows = r.features.map((f: any) => f.attributes.slice(1).map(value));
    // Dates are the exact milliseconds rounded half away from zero; doubles and reals as stored (reals as float32).
    expect(rows).toEqual([
      ['quote " backslash \\ \u0001\n é ✓ 😀 \u2028', NaN, NaN, Date.UTC(2024, 1, 29, 12, 34, 56, 790), 9007199254740992],
      ['', Infinity, Infinity, -1, -9223372036854775808],
      [undefined, -Infinity, -Infinity, Date.parse('0001-01-01T00:00:00Z'), 0],
      ['-0', -0, Math.fround(3.4e38), 253402300800000, 1],
      ['tiny', 5e-324, Math.fround(1e-40), undefined, undefined],
      ['huge', 1.7976931348623157e308, 16777216, 0, 2],
    ]);
    expect(Object.is(rows[3][1], -0)).toBe(true);
    expect(r.features.map((f: any) => f.geometry?.coords.length)).toEqual([2, 2, undefined, 2, 2, 2]);
  });

  it('pages as f=json does, with exceededTransferLimit', async () => {
    const params = { where: 'Floor <= 0', orderByFields: 'OBJECTID', resultOffset: 20, resultRecordCount: 3, outFields: 'OBJECTID' };
    const json = (await get(points, 'query', params, owner.token)).body;
    const { message } = await pbf(points, params, owner.token);
    const r = message.queryResult.featureResult;
    expect(json.exceededTransferLimit).toBe(true);
    expect(r.exceededTransferLimit).toBe(true);
    expect(r.features.map((f: any) => f.attributes[0].uintValue)).toEqual(json.features.map((f: any) => f.attributes.OBJECTID));
    const last = await pbf(points, { ...params, resultOffset: 23 }, owner.token);
    expect(last.message.queryResult.featureResult.exceededTransferLimit).toBeUndefined();
    // The SDK's tile queries send returnExceededLimitFeatures=false: past one page, no features and the flag.
    const tile = await pbf(points, { ...params, returnExceededLimitFeatures: false }, owner.token);
    expect(tile.message.queryResult.featureResult).toMatchObject({ exceededTransferLimit: true });
    expect(tile.message.queryResult.featureResult.features).toBeUndefined();
    const fits = await pbf(points, { ...params, resultOffset: 23, returnExceededLimitFeatures: false }, owner.token);
    expect(fits.message.queryResult.featureResult.features).toHaveLength(2);
  });

  it('answers count only and ids only in the same buffer', async () => {
    const count = await pbf(points, { where: 'Visits IS NULL', returnCountOnly: true }, owner.token);
    expect(count.message.queryResult).toEqual({ countResult: { count: 5 } });
    const ids = await pbf(points, { where: 'Visits IS NULL', returnIdsOnly: true }, owner.token);
    const json = (await get(points, 'query', { where: 'Visits IS NULL', returnIdsOnly: true }, owner.token)).body;
    expect(ids.message.queryResult.idsResult).toEqual({ objectIdFieldName: 'OBJECTID', objectIds: json.objectIds });
  });

  it('keeps the caller’s wkid for web mercator and quantizes in it', async () => {
    const extent = { xmin: -2e7, ymin: -2e7, xmax: 2e7, ymax: 2e7, spatialReference: { wkid: 102100, latestWkid: 3857 } };
    const quantizationParameters = JSON.stringify({ mode: 'view', originPosition: 'upperLeft', tolerance: 10, extent });
    const params = { where: 'OBJECTID = 2', outSR: 102100, quantizationParameters };
    const r = (await pbf(points, params, owner.token)).message.queryResult.featureResult;
    expect(r.spatialReference).toEqual({ wkid: 102100, lastestWkid: 3857 });
    const json = (await get(points, 'query', { where: 'OBJECTID = 2', outSR: 102100 }, owner.token)).body;
    const [[[x, y]]] = parts(r.features[0].geometry, r.transform);
    expect(Math.abs(x - json.features[0].geometry.x)).toBeLessThanOrEqual(5);
    expect(Math.abs(y - json.features[0].geometry.y)).toBeLessThanOrEqual(5);
  });

  it('reads pages on connections without the JIT, which PostGIS cost estimates would switch on for a few thousand rows', async () => {
    const features = t.app.get<DataSource>(getDataSourceToken(FEATURE_DB));
    expect(await features.query('SHOW jit')).toEqual([{ jit: 'off' }]);
  });

  it('refuses what it does not quantize with the JSON error envelope, as ArcGIS answers errors for f=pbf', async () => {
    const refused = async (quantizationParameters: string, detail: RegExp) => {
      const r: Reply = await get(points, 'query', { f: 'pbf', where: '1=1', quantizationParameters }, owner.token);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body.error).toMatchObject({ code: 400, message: 'Cannot perform query. Invalid query parameters.' });
      expect(r.body.error.details[0]).toMatch(detail);
    };
    await refused(JSON.stringify({ mode: 'edit', originPosition: 'upperLeft', tolerance: 1 }), /mode 'edit' is not supported/);
    await refused(JSON.stringify({ mode: 'view', tolerance: 1 }), /needs an extent/);
    await refused(JSON.stringify({ mode: 'view', tolerance: 0, extent: VIEW }), /tolerance greater than 0/);
    await refused(JSON.stringify({ mode: 'view', originPosition: 'center', tolerance: 1, extent: VIEW }), /originPosition/);
    await refused(JSON.stringify({ tolerance: 1, extent: { ...VIEW, spatialReference: { wkid: 3857 } } }), /wkid 3857, not in the reply's/);
    await refused('{"mode":', /not valid JSON/);
    const extent: Reply = await get(points, 'query', { f: 'pbf', where: '1=1', returnExtentOnly: true }, owner.token);
    expect(extent.body.error.details).toEqual(["'returnExtentOnly' is answered in f=json, pjson or geojson."]);
    const noLayer = await get(serviceUrl, '7/query', { f: 'pbf', where: '1=1' }, owner.token);
    expect(noLayer.body.error.code).toBe(400);
  });
});

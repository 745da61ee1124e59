/**
 * The query parameters that shape returned geometries: returnCentroid, maxAllowableOffset, geometryPrecision, and
 * quantizationParameters with f=json. Each is checked against what it promises, computed here from the features as
 * they were added: a centroid lies inside its polygon, a generalized shape keeps a subset of the vertices and strays
 * no further than the offset, coordinates carry the decimals asked for, and quantized integers decode to the
 * coordinates within half a grid step. f=pbf must say the same.
 */
import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { createHostedService, get, post, Reply } from '../support/client';
import { square } from '../support/rings';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

type Xy = number[];
/** A "C" whose area centroid (x ≈ 21.36, y = 41.5) lies in its gap, outside the shape. */
const C_SHAPE: Xy[] = [
  [20, 40],
  [20, 43],
  [23, 43],
  [23, 42],
  [21, 42],
  [21, 41],
  [23, 41],
  [23, 40],
  [20, 40],
];
/** A 1° square whose top edge wobbles by 0.001° over 200 vertices. */
const WOBBLY: Xy[] = [
  [10, 52],
  ...Array.from({ length: 200 }, (_, i) => [10 + i / 200, 53 + 0.001 * Math.sin(i)]),
  [11, 53],
  [11, 52],
  [10, 52],
];
const POLYGONS = [
  { attributes: { Label: 'holed' }, geometry: { rings: [square(10, 50, 1), square(10.25, 50.25, 0.5).reverse()] } },
  { attributes: { Label: 'two parts' }, geometry: { rings: [square(12, 50, 0.5), square(13, 50, 0.5)] } },
  { attributes: { Label: 'C' }, geometry: { rings: [C_SHAPE] } },
  { attributes: { Label: 'wobbly' }, geometry: { rings: [WOBBLY] } },
  { attributes: { Label: 'speck' }, geometry: { rings: [square(14, 50, 1e-6)] } },
  { attributes: { Label: 'none' }, geometry: null },
];
const LINE: Xy[] = Array.from({ length: 101 }, (_, i) => [5 + i / 100, 45 + 0.002 * Math.sin(i * 1.7)]);
const POINTS = [
  [12.3456789, 45.987654321],
  [-0.0049, 0.0051],
  [179.99999999, -89.123456789012],
];

/** Even-odd ray casting over every ring: inside the shell and outside its holes. */
function inside([x, y]: Xy, rings: Xy[][]): boolean {
  let odd = false;
  for (const ring of rings)
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
    }
  return odd;
}

function distanceToSegment([x, y]: Xy, [ax, ay]: Xy, [bx, by]: Xy): number {
  const [dx, dy] = [bx - ax, by - ay];
  const len = dx * dx + dy * dy;
  const t = len ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len)) : 0;
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

const distanceToPath = (p: Xy, path: Xy[]) => Math.min(...path.slice(1).map((b, i) => distanceToSegment(p, path[i], b)));

/** Map coordinates of quantized ArcGIS JSON parts: every part's differences summed from its first vertex. */
function decode(parts: Xy[][], t: { originPosition: string; scale: number[]; translate: number[] }): Xy[][] {
  const sy = t.originPosition === 'upperLeft' ? -1 : 1;
  return parts.map((part) => {
    let [x, y] = [0, 0];
    return part.map(([dx, dy], i) => {
      [x, y] = i ? [x + dx, y + dy] : [dx, dy];
      return [t.translate[0] + x * t.scale[0], t.translate[1] + sy * y * t.scale[1]];
    });
  });
}

/** Digits after the point of a number as JSON writes it. */
const decimals = (v: number) => (String(v).split('.')[1] ?? '').length;

describe('query geometry parameters', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let polygons: string;
  let lines: string;
  let points: string;
  const json = (url: string, params: Record<string, string | number | boolean>) => get(url, 'query', params, owner.token);
  const byLabel = (r: Reply) => new Map<string, any>(r.body.features.map((f: any) => [f.attributes.Label, f]));

  beforeAll(async () => {
    const svc = await createHostedService(t.base, owner, [
      { name: 'Polygons', geometryType: 'esriGeometryPolygon', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
      { name: 'Lines', geometryType: 'esriGeometryPolyline', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
      { name: 'Points', geometryType: 'esriGeometryPoint', fields: [{ name: 'Label', type: 'esriFieldTypeString' }] },
    ]);
    [polygons, lines, points] = [0, 1, 2].map((i) => `${svc.serviceurl}/${i}`);
    const add = async (url: string, features: object[]) => {
      const r = await post(url, 'addFeatures', { features: JSON.stringify(features) }, owner.token);
      expect(r.body.addResults.every((a: any) => a.success)).toBe(true);
    };
    await add(polygons, POLYGONS);
    await add(lines, [{ attributes: { Label: 'wave' }, geometry: { paths: [LINE] } }]);
    await add(
      points,
      POINTS.map(([x, y], i) => ({ attributes: { Label: `p${i}` }, geometry: { x, y } })),
    );
  });

  it('advertises centroids on polygon layers and quantization on every layer with geometry', async () => {
    const info = async (url: string) => (await get(url, '', {}, owner.token)).body;
    const [p, l] = [await info(polygons), await info(lines)];
    expect(p.advancedQueryCapabilities.supportsReturningGeometryCentroid).toBe(true);
    expect(l.advancedQueryCapabilities.supportsReturningGeometryCentroid).toBe(false);
    expect([p.supportsCoordinatesQuantization, l.supportsCoordinatesQuantization]).toEqual([true, true]);
  });

  describe('returnCentroid', () => {
    it('gives each polygon a point inside it, next to the geometry, also where the area centroid falls outside', async () => {
      const r = await json(polygons, { where: '1=1', outFields: 'Label', returnCentroid: true });
      expect(r.body.error).toBeUndefined();
      const f = byLabel(r);
      for (const source of POLYGONS.filter((p) => p.geometry)) {
        const feature = f.get(source.attributes.Label);
        expect(Object.keys(feature)).toEqual(['attributes', 'geometry', 'centroid']);
        expect(Object.keys(feature.centroid)).toEqual(['x', 'y']);
        if (source.attributes.Label !== 'speck')
          expect(inside([feature.centroid.x, feature.centroid.y], source.geometry!.rings)).toBe(true);
      }
      // Not in the hole, not in the C's gap.
      expect(inside([f.get('holed').centroid.x, f.get('holed').centroid.y], [square(10.25, 50.25, 0.5)])).toBe(false);
      expect(f.get('C').centroid.x < 21 || f.get('C').centroid.y < 41 || f.get('C').centroid.y > 42).toBe(true);
      // A feature without geometry has no centroid.
      expect(f.get('none')).toEqual({ attributes: { Label: 'none' }, geometry: null });
    });

    it('comes without the geometry when returnGeometry is false, and in outSR', async () => {
      const r = await json(polygons, { where: "Label = 'C'", outFields: 'Label', returnGeometry: false, returnCentroid: true });
      const [c] = r.body.features;
      expect(Object.keys(c)).toEqual(['attributes', 'centroid']);
      const m = await json(polygons, { where: "Label = 'C'", outFields: 'Label', returnCentroid: true, outSR: 3857 });
      const [mc] = m.body.features;
      expect(inside([mc.centroid.x, mc.centroid.y], mc.geometry.rings)).toBe(true);
      // Web Mercator of the geographic centroid.
      const r0 = 6378137;
      expect(mc.centroid.x).toBeCloseTo((c.centroid.x * Math.PI * r0) / 180, 3);
      expect(mc.centroid.y).toBeCloseTo(r0 * Math.log(Math.tan(Math.PI / 4 + (c.centroid.y * Math.PI) / 360)), 3);
    });

    it('is left out when false or blank, and refused where it has no meaning', async () => {
      const plain = await json(polygons, { where: '1=1', outFields: '*' });
      for (const returnCentroid of ['false', ''])
        expect((await json(polygons, { where: '1=1', outFields: '*', returnCentroid })).text).toBe(plain.text);
      const refusals: [string, Record<string, string | boolean>, RegExp][] = [
        [points, { returnCentroid: true }, /polygon layers only/],
        [polygons, { returnCentroid: true, f: 'geojson' }, /f=json, pjson or pbf/],
        [polygons, { returnCentroid: 'yes' }, /true or false/],
      ];
      for (const [url, params, detail] of refusals) {
        const r = await json(url, { where: '1=1', ...params });
        expect(r.body.error).toMatchObject({ code: 400, message: 'Cannot perform query. Invalid query parameters.' });
        expect(r.body.error.details[0]).toMatch(detail);
      }
    });

    it('is on the reply grid in f=pbf, where the geometry is', async () => {
      const tolerance = 0.001;
      const extent = { xmin: 0, ymin: 30, xmax: 30, ymax: 60 };
      const quantizationParameters = JSON.stringify({ mode: 'view', originPosition: 'upperLeft', tolerance, extent });
      const res = await fetch(
        `${polygons}/query?${new URLSearchParams({ f: 'pbf', where: '1=1', outFields: 'Label', orderByFields: 'OBJECTID', returnCentroid: 'true', quantizationParameters, token: owner.token })}`,
      );
      const r = (decodeFeatureCollection(new Uint8Array(await res.arrayBuffer())) as any).queryResult.featureResult;
      const j = byLabel(await json(polygons, { where: '1=1', outFields: 'Label', returnCentroid: true }));
      for (const f of r.features) {
        const label = f.attributes[0].stringValue;
        if (label === 'none') {
          expect(f.centroid).toBeUndefined();
          continue;
        }
        const [col, row] = f.centroid.coords;
        expect(f.centroid.lengths).toBeUndefined();
        expect(extent.xmin + col * tolerance).toBeCloseTo(j.get(label).centroid.x, 3);
        expect(extent.ymax - row * tolerance).toBeCloseTo(j.get(label).centroid.y, 3);
      }
      // The speck is smaller than a pixel: no geometry is left of it, but its centroid still places it.
      const speck = r.features.find((f: any) => f.attributes[0].stringValue === 'speck');
      expect(speck.geometry).toBeUndefined();
      expect(speck.centroid.coords).toEqual([14000, 10000]);
    });
  });

  describe('maxAllowableOffset', () => {
    it('generalizes polygons and lines to a subset of their vertices within the offset, in the output units', async () => {
      const offset = 0.01;
      const f = byLabel(await json(polygons, { where: '1=1', outFields: 'Label', maxAllowableOffset: offset }));
      const [wobbly] = f.get('wobbly').geometry.rings;
      expect(wobbly.length).toBeLessThan(10);
      for (const v of wobbly) expect(WOBBLY.some((w) => w[0] === v[0] && w[1] === v[1])).toBe(true);
      for (const v of WOBBLY) expect(distanceToPath(v, wobbly)).toBeLessThanOrEqual(offset);
      // Shapes already simpler than the offset are as they were.
      expect(f.get('holed').geometry.rings).toEqual(POLYGONS[0].geometry!.rings);
      expect(f.get('C').geometry.rings).toEqual([C_SHAPE]);
      const [line] = (await json(lines, { where: '1=1', maxAllowableOffset: offset })).body.features[0].geometry.paths;
      expect(line.length).toBeLessThan(LINE.length / 5);
      for (const v of LINE) expect(distanceToPath(v, line)).toBeLessThanOrEqual(offset);
      // In metres when the reply is in Web Mercator: 2 km keeps the wobble of ~110 m out.
      const m = byLabel(await json(polygons, { where: "Label = 'wobbly'", outFields: 'Label', outSR: 3857, maxAllowableOffset: 2000 }));
      expect(m.get('wobbly').geometry.rings[0]).toHaveLength(5);
    });

    it('keeps shapes smaller than the offset instead of letting them vanish from the map', async () => {
      const f = byLabel(await json(polygons, { where: '1=1', outFields: 'Label', maxAllowableOffset: 5 }));
      for (const label of ['holed', 'two parts', 'C', 'wobbly', 'speck']) {
        const rings = f.get(label).geometry.rings;
        expect(rings.length).toBeGreaterThan(0);
        for (const ring of rings) expect(ring.length).toBeGreaterThanOrEqual(4);
      }
      // The hole, far smaller than the offset, is gone; both parts of 'two parts' are still there.
      expect(f.get('holed').geometry.rings).toHaveLength(1);
      expect(f.get('two parts').geometry.rings).toHaveLength(2);
    });

    it('leaves points alone, answers 0 and blank as no offset, and refuses what is not a number of at least 0', async () => {
      const plain = await json(points, { where: '1=1', outFields: '*' });
      expect((await json(points, { where: '1=1', outFields: '*', maxAllowableOffset: 10 })).text).toBe(plain.text);
      const plainPolygons = await json(polygons, { where: '1=1', outFields: '*' });
      for (const maxAllowableOffset of ['0', '', ' ']) {
        expect((await json(polygons, { where: '1=1', outFields: '*', maxAllowableOffset })).text).toBe(plainPolygons.text);
      }
      for (const maxAllowableOffset of ['-1', 'abc', '1e999', '0x10']) {
        const r = await json(polygons, { where: '1=1', maxAllowableOffset });
        expect(r.body.error.details[0]).toMatch(/'maxAllowableOffset' must be a number of at least 0/);
      }
    });

    it('generalizes f=pbf and f=geojson the same way', async () => {
      const offset = 0.01;
      const quantizationParameters = JSON.stringify({
        mode: 'view',
        originPosition: 'upperLeft',
        tolerance: 1e-6,
        extent: { xmin: 0, ymin: 30, xmax: 30, ymax: 60 },
      });
      const where = "Label = 'wobbly'";
      const res = await fetch(
        `${polygons}/query?${new URLSearchParams({ f: 'pbf', where, maxAllowableOffset: String(offset), quantizationParameters, token: owner.token })}`,
      );
      const pbf = (decodeFeatureCollection(new Uint8Array(await res.arrayBuffer())) as any).queryResult.featureResult;
      const generalized = (await json(polygons, { where, maxAllowableOffset: offset })).body.features[0].geometry.rings;
      expect(pbf.features[0].geometry.lengths).toEqual(generalized.map((r: Xy[]) => r.length));
      const gj = (await json(polygons, { where, maxAllowableOffset: offset, f: 'geojson' })).body.features[0].geometry;
      expect(gj.coordinates[0][0]).toHaveLength(generalized[0].length);
    });
  });

  describe('geometryPrecision', () => {
    it('rounds point and polygon coordinates to the decimals asked for, in f=json and f=geojson', async () => {
      for (const n of [0, 2, 5]) {
        const r = await json(points, { where: '1=1', outFields: 'Label', orderByFields: 'OBJECTID', geometryPrecision: n });
        r.body.features.forEach((f: any, i: number) => {
          for (const [v, source] of [
            [f.geometry.x, POINTS[i][0]],
            [f.geometry.y, POINTS[i][1]],
          ]) {
            expect(decimals(v)).toBeLessThanOrEqual(n);
            expect(Math.abs(v - source)).toBeLessThanOrEqual(0.5 * 10 ** -n + 1e-12);
          }
        });
        const g = await json(points, { where: '1=1', orderByFields: 'OBJECTID', geometryPrecision: n, f: 'geojson' });
        expect(g.body.features.map((f: any) => f.geometry.coordinates)).toEqual(
          r.body.features.map((f: any) => [f.geometry.x, f.geometry.y]),
        );
      }
      const p = byLabel(await json(polygons, { where: "Label = 'wobbly'", outFields: 'Label', geometryPrecision: 2 }));
      const ring: Xy[] = p.get('wobbly').geometry.rings[0];
      expect(ring.flat().every((v) => decimals(v) <= 2)).toBe(true);
      // The wobble is a thousandth: at two decimals the top edge lies flat on 53.
      expect(ring.filter(([, y]) => y !== 52).every(([, y]) => y === 53)).toBe(true);
    });

    it('rounds centroids too, and changes nothing from 15 decimals on; refuses what is not a whole number', async () => {
      const r = await json(polygons, { where: "Label = 'C'", outFields: 'Label', returnCentroid: true, geometryPrecision: 1 });
      const { x, y } = r.body.features[0].centroid;
      expect([decimals(x), decimals(y)].every((d) => d <= 1)).toBe(true);
      const plain = await json(points, { where: '1=1', outFields: '*' });
      for (const geometryPrecision of ['15', '17', '']) {
        expect((await json(points, { where: '1=1', outFields: '*', geometryPrecision })).text).toBe(plain.text);
      }
      for (const geometryPrecision of ['-1', '2.5', 'two']) {
        const bad = await json(points, { where: '1=1', geometryPrecision });
        expect(bad.body.error.details[0]).toMatch(/'geometryPrecision' must be a whole number/);
      }
    });
  });

  describe('quantizationParameters with f=json', () => {
    const VIEW = { xmin: 0, ymin: 30, xmax: 30, ymax: 60 };
    const q = (tolerance: number, originPosition = 'upperLeft', extent: object = VIEW) =>
      JSON.stringify({ mode: 'view', originPosition, tolerance, extent });

    it('writes the transform and whole grid numbers that decode to the coordinates within half a step', async () => {
      const tolerance = 0.001;
      const where = "Label IN ('holed', 'two parts', 'C')";
      const r = await json(polygons, { where, outFields: 'Label', quantizationParameters: q(tolerance), returnCentroid: true });
      expect(r.body.error).toBeUndefined();
      const keys = Object.keys(r.body);
      expect(keys.indexOf('transform')).toBe(keys.indexOf('spatialReference') + 1);
      expect(r.body.transform).toEqual({ originPosition: 'upperLeft', scale: [tolerance, tolerance], translate: [0, 60] });
      const plain = byLabel(await json(polygons, { where, outFields: 'Label', returnCentroid: true }));
      for (const f of r.body.features) {
        const rings: Xy[][] = f.geometry.rings;
        expect(rings.flat(2).every(Number.isInteger)).toBe(true);
        const decoded = decode(rings, r.body.transform);
        const expected: Xy[][] = plain.get(f.attributes.Label).geometry.rings;
        expect(decoded.map((ring) => ring.length)).toEqual(expected.map((ring) => ring.length));
        decoded.flat().forEach(([x, y], i) => {
          expect(Math.abs(x - expected.flat()[i][0])).toBeLessThanOrEqual(tolerance / 2 + 1e-9);
          expect(Math.abs(y - expected.flat()[i][1])).toBeLessThanOrEqual(tolerance / 2 + 1e-9);
        });
        // The centroid is one grid point.
        const c = plain.get(f.attributes.Label).centroid;
        expect(f.centroid).toEqual({ x: Math.round(c.x / tolerance), y: Math.round((60 - c.y) / tolerance) });
      }
      // (10, 50) is 10,000 steps right of and 10,000 below the upper left corner; the next vertex 1,000 steps up.
      const holed = r.body.features.find((f: any) => f.attributes.Label === 'holed');
      expect(holed.geometry.rings[0].slice(0, 2)).toEqual([
        [10000, 10000],
        [0, -1000],
      ]);
    });

    it('writes the same integers as f=pbf, drops vertices on the step before them, and leaves a speck no geometry', async () => {
      const quantizationParameters = q(0.01);
      const j = await json(polygons, { where: '1=1', outFields: 'Label', orderByFields: 'OBJECTID', quantizationParameters });
      const res = await fetch(
        `${polygons}/query?${new URLSearchParams({ f: 'pbf', where: '1=1', outFields: 'Label', orderByFields: 'OBJECTID', quantizationParameters, token: owner.token })}`,
      );
      const pbf = (decodeFeatureCollection(new Uint8Array(await res.arrayBuffer())) as any).queryResult.featureResult;
      j.body.features.forEach((f: any, i: number) => {
        const g = pbf.features[i].geometry;
        if (!f.geometry) return expect(g).toBeUndefined();
        expect(f.geometry.rings.map((r: Xy[]) => r.length)).toEqual(g.lengths);
        expect(f.geometry.rings.flat(2)).toEqual(g.coords);
      });
      const f = byLabel(j);
      expect(f.get('wobbly').geometry.rings[0].length).toBeLessThan(WOBBLY.length);
      expect(f.get('speck').geometry).toBeNull();
    });

    it('quantizes points, lines, the lower left origin and Web Mercator', async () => {
      const p = await json(points, {
        where: '1=1',
        outFields: 'Label',
        orderByFields: 'OBJECTID',
        quantizationParameters: q(1e-4, 'lowerLeft', { xmin: -180, ymin: -90, xmax: 180, ymax: 90 }),
      });
      expect(p.body.transform).toEqual({ originPosition: 'lowerLeft', scale: [1e-4, 1e-4], translate: [-180, -90] });
      p.body.features.forEach((f: any, i: number) => {
        expect(Number.isInteger(f.geometry.x) && Number.isInteger(f.geometry.y)).toBe(true);
        expect(Math.abs(-180 + f.geometry.x * 1e-4 - POINTS[i][0])).toBeLessThanOrEqual(5e-5 + 1e-9);
        expect(Math.abs(-90 + f.geometry.y * 1e-4 - POINTS[i][1])).toBeLessThanOrEqual(5e-5 + 1e-9);
      });
      const l = await json(lines, { where: '1=1', quantizationParameters: q(1e-5) });
      const [path] = decode(l.body.features[0].geometry.paths, l.body.transform);
      expect(path).toHaveLength(LINE.length);
      path.forEach(([x, y], i) => expect(Math.hypot(x - LINE[i][0], y - LINE[i][1])).toBeLessThan(1e-5));
      const extent = { xmin: -2e7, ymin: -2e7, xmax: 2e7, ymax: 2e7, spatialReference: { wkid: 102100 } };
      const m = await json(points, { where: "Label = 'p0'", outSR: 102100, quantizationParameters: q(10, 'upperLeft', extent) });
      const plain = await json(points, { where: "Label = 'p0'", outSR: 102100 });
      expect(m.body.spatialReference).toEqual({ wkid: 102100, latestWkid: 3857 });
      expect(Math.abs(-2e7 + m.body.features[0].geometry.x * 10 - plain.body.features[0].geometry.x)).toBeLessThanOrEqual(5);
      expect(Math.abs(2e7 - m.body.features[0].geometry.y * 10 - plain.body.features[0].geometry.y)).toBeLessThanOrEqual(5);
    });

    it('is refused with f=geojson and when malformed, as for f=pbf', async () => {
      const g = await json(polygons, { where: '1=1', f: 'geojson', quantizationParameters: q(1) });
      expect(g.body.error.details).toEqual(["'quantizationParameters' is answered in f=json, pjson or pbf."]);
      const bad = await json(polygons, { where: '1=1', quantizationParameters: JSON.stringify({ mode: 'edit', tolerance: 1 }) });
      expect(bad.body.error.details[0]).toMatch(/mode 'edit' is not supported/);
    });
  });
});

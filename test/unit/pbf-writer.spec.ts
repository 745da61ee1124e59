import { encodeFeatureResult, encodeFeatureResultWithProtobufjs, PbfFeatureResult } from '../../src/feature-server/pbf/feature-collection';
import { FIELD_TYPES, FieldType, GeometryType } from '../../src/layers/layer-schema';

/** A seeded generator, so a failure names a case that can be run again. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

const GEOMETRY_TYPES: GeometryType[] = ['esriGeometryPoint', 'esriGeometryMultipoint', 'esriGeometryPolyline', 'esriGeometryPolygon'];
const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  127,
  128,
  -64,
  -65,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 32 - 1,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  1.5,
  -2.75,
  1e300,
];
const EDGE_STRINGS = ['', 'a', 'é', '名前', '🗺️ map', 'x'.repeat(127), 'y'.repeat(128), 'z'.repeat(20_000), '\u0000\uffff'];

type Rng = () => number;
const pick = <T>(r: Rng, xs: T[]) => xs[Math.floor(r() * xs.length)];
const int = (r: Rng) => (r() < 0.5 ? pick(r, EDGE_NUMBERS) : Math.round((r() - 0.5) * 2 ** (1 + Math.floor(r() * 52))));

/** A value as an f=pbf page's JSON carries it: numbers, strings, NaN and the infinities as strings, or null. */
function value(r: Rng, type: FieldType): unknown {
  if (r() < 0.1) return null;
  switch (type) {
    case 'esriFieldTypeString':
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID':
      return r() < 0.5 ? pick(r, EDGE_STRINGS) : `point ${Math.floor(r() * 1e6)}`;
    case 'esriFieldTypeSingle':
    case 'esriFieldTypeDouble':
      return r() < 0.2 ? pick(r, ['NaN', 'Infinity', '-Infinity', -0, 3.4e39]) : (r() - 0.5) * 1e6;
    case 'esriFieldTypeOID':
      return Math.floor(r() * 2 ** 31);
    case 'esriFieldTypeSmallInteger':
    case 'esriFieldTypeInteger':
      return int(r) | 0;
    default:
      return r() < 0.05 ? 'NaN' : int(r);
  }
}

function grid(r: Rng, type: GeometryType): unknown {
  const xy = () => [Math.round((r() - 0.5) * 2 ** (1 + Math.floor(r() * 40))), Math.round((r() - 0.5) * 2 ** 20)];
  const line = (n: number) => Array.from({ length: n }, xy);
  const n = () => 1 + Math.floor(r() * (r() < 0.1 ? 400 : 6));
  if (r() < 0.1) return null;
  switch (type) {
    case 'esriGeometryPoint':
      return xy();
    case 'esriGeometryMultipoint':
      return { type: 'MultiPoint', coordinates: line(n()) };
    case 'esriGeometryPolyline':
      return { type: 'MultiLineString', coordinates: Array.from({ length: n() }, () => line(n())) };
    case 'esriGeometryPolygon':
      return {
        type: 'MultiPolygon',
        coordinates: Array.from({ length: n() }, () => Array.from({ length: 1 + Math.floor(r() * 3) }, () => line(n()))),
      };
  }
}

function page(r: Rng, features: number): PbfFeatureResult {
  const types = Array.from({ length: Math.floor(r() * 8) }, () => pick(r, [...FIELD_TYPES]));
  const geometryType = pick(r, GEOMETRY_TYPES);
  const withGeometry = r() < 0.8;
  const centroids = r() < 0.3;
  return {
    objectIdFieldName: 'OBJECTID',
    globalIdFieldName: r() < 0.5 ? '' : 'GlobalID',
    geometryType,
    spatialReference: { wkid: 102100, latestWkid: 3857 },
    exceededTransferLimit: r() < 0.5,
    transform: { originPosition: 'upperLeft', scale: 9783.9, xTranslate: -20037508.34, yTranslate: 20037508.34 },
    fields: types.map((type, i) => ({ name: `f${i}`, type, alias: `F ${i}` })),
    rows: Array.from({ length: features }, () => [
      ...types.map((t) => value(r, t)),
      ...(withGeometry ? [grid(r, geometryType)] : []),
      ...(centroids ? [r() < 0.1 ? null : { type: 'Point', coordinates: [Math.round(r() * 1e6), Math.round(-r() * 1e6)] }] : []),
    ]),
    rowGeometry: withGeometry ? geometryType : undefined,
    centroids,
  };
}

describe('the f=pbf feature writer', () => {
  it('writes the bytes protobufjs writes, for every field type, geometry type and length', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = random(seed);
      const p = page(r, Math.floor(r() * 40));
      const mine = encodeFeatureResult(p);
      const reference = encodeFeatureResultWithProtobufjs(p);
      if (!mine.equals(reference)) throw new Error(`seed ${seed}: ${mine.length} bytes against protobufjs's ${reference.length}`);
    }
  });

  it('writes a page larger than its buffer, and pages without features or fields', () => {
    const r = random(7);
    const big = page(r, 3000);
    for (const p of [big, { ...big, rows: [] }, { ...big, fields: [], rows: [[]], rowGeometry: undefined, centroids: false }]) {
      expect(encodeFeatureResult(p).equals(encodeFeatureResultWithProtobufjs(p))).toBe(true);
    }
  });
});

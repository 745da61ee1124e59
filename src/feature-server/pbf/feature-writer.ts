/**
 * The features of a FeatureCollection page written straight into one reused buffer: the same bytes protobufjs writes
 * (test/unit/pbf-writer.spec.ts compares them), without an object per value and a fork per nested message, which made
 * protobufjs's encoding cost more than PostgreSQL building the page.
 */
import { FieldType, GeometryType } from '../../layers/layer-schema';
import { GridGeoJson } from './grid';
import { PbfGeometry, pbfGeometry } from './pbf-features';

/** Grown on demand and kept: a page is written synchronously, so one buffer serves every request in turn. */
let buf = Buffer.allocUnsafe(1 << 20);
let pos = 0;

function room(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const next = Buffer.allocUnsafe(size);
  buf.copy(next, 0, 0, pos);
  buf = next;
}

function varint32(v: number): void {
  room(5);
  v >>>= 0;
  while (v > 127) {
    buf[pos++] = (v & 127) | 128;
    v >>>= 7;
  }
  buf[pos++] = v;
}

/** A JavaScript number as protobufjs writes an int64 or sint64 (LongBits.fromNumber, then zig-zag for sint64). */
function varint64(value: number, zigzag: boolean): void {
  room(10);
  let lo = 0;
  let hi = 0;
  if (value !== 0) {
    const sign = value < 0;
    if (sign) value = -value;
    lo = value >>> 0;
    hi = ((value - lo) / 4294967296) >>> 0;
    if (sign) {
      hi = ~hi >>> 0;
      lo = ~lo >>> 0;
      if (++lo > 4294967295) {
        lo = 0;
        if (++hi > 4294967295) hi = 0;
      }
    }
  }
  if (zigzag) {
    const mask = hi >> 31;
    hi = (((hi << 1) | (lo >>> 31)) ^ mask) >>> 0;
    lo = ((lo << 1) ^ mask) >>> 0;
  }
  while (hi) {
    buf[pos++] = (lo & 127) | 128;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  while (lo > 127) {
    buf[pos++] = (lo & 127) | 128;
    lo >>>= 7;
  }
  buf[pos++] = lo;
}

/** Starts a length-delimited field: its tag, then one byte for a length under 128 (the usual case), widened at the end. */
function open(tag: number): number {
  room(2);
  buf[pos++] = tag;
  return pos++;
}

function close(mark: number): void {
  const len = pos - mark - 1;
  if (len < 128) {
    buf[mark] = len;
    return;
  }
  let extra = 0;
  for (let v = len >>> 7; v; v >>>= 7) extra++;
  room(extra);
  buf.copyWithin(mark + 1 + extra, mark + 1, pos);
  pos += extra;
  const end = pos;
  pos = mark;
  varint32(len);
  pos = end;
}

function string(s: string): void {
  const mark = open(0x0a);
  room(s.length * 3);
  pos += buf.write(s, pos, 'utf8');
  close(mark);
}

function tagged(tag: number): void {
  room(1);
  buf[pos++] = tag;
}

/** A number from an f=pbf page's JSON, where NaN and the infinities come as strings (page-sql.ts, pbfValue). */
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));

/** Each field type's Value member (feature-collection.proto), written from the page's JSON value. */
const VALUE: Record<FieldType, (v: unknown) => void> = {
  esriFieldTypeOID: (v) => (tagged(0x28), varint32(v as number)),
  esriFieldTypeSmallInteger: (v) => (tagged(0x20), varint32(((v as number) << 1) ^ ((v as number) >> 31))),
  esriFieldTypeInteger: (v) => (tagged(0x20), varint32(((v as number) << 1) ^ ((v as number) >> 31))),
  esriFieldTypeBigInteger: (v) => (tagged(0x40), varint64(num(v), true)),
  esriFieldTypeSingle: (v) => (tagged(0x15), room(4), (pos = buf.writeFloatLE(num(v), pos))),
  esriFieldTypeDouble: (v) => (tagged(0x19), room(8), (pos = buf.writeDoubleLE(num(v), pos))),
  esriFieldTypeString: (v) => string(v as string),
  esriFieldTypeDate: (v) => (tagged(0x40), varint64(num(v), true)),
  esriFieldTypeGUID: (v) => string(v as string),
  esriFieldTypeGlobalID: (v) => string(v as string),
};

function geometry(tag: number, g: PbfGeometry): void {
  const mark = open(tag);
  if (g.lengths.length) {
    const inner = open(0x12); // Geometry.lengths = 2, packed
    for (const n of g.lengths) varint32(n);
    close(inner);
  }
  if (g.coords.length) {
    const inner = open(0x1a); // Geometry.coords = 3, packed sint64
    for (const c of g.coords) varint64(c, true);
    close(inner);
  }
  close(mark);
}

/**
 * FeatureResult.features (field 15) from an f=pbf page's rows (page-sql.ts): each row the values in `fields` order;
 * then, when `geometryType` is given, the geometry ([x, y] for a point, grid GeoJSON for the others, null for none);
 * then the grid centroid's GeoJSON when `centroids` is set.
 */
export function writeFeatures(rows: unknown[][], fields: { type: FieldType }[], geometryType?: GeometryType, centroids = false): Buffer {
  const values = fields.map((f) => VALUE[f.type]);
  const n = fields.length;
  pos = 0;
  for (const r of rows) {
    const feature = open(0x7a); // FeatureResult.features = 15
    for (let i = 0; i < n; i++) {
      const v = r[i];
      const mark = open(0x0a); // Feature.attributes = 1; null is an empty Value
      if (v !== null && v !== undefined) values[i](v);
      close(mark);
    }
    const g = r[n];
    if (geometryType === 'esriGeometryPoint') {
      // A point has no lengths: its one vertex is the geometry.
      if (Array.isArray(g)) {
        const mark = open(0x12); // Feature.geometry = 2
        const inner = open(0x1a);
        varint64(num(g[0]), true);
        varint64(num(g[1]), true);
        close(inner);
        close(mark);
      }
    } else if (geometryType) {
      const parts = pbfGeometry(geometryType, g as GridGeoJson | null);
      if (parts) geometry(0x12, parts);
    }
    if (centroids) {
      const c = pbfGeometry('esriGeometryPoint', r[geometryType ? n + 1 : n] as GridGeoJson | null);
      if (c) geometry(0x22, c); // Feature.centroid = 4
    }
    close(feature);
  }
  return Buffer.from(buf.subarray(0, pos));
}

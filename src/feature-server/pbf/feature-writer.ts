/**
 * The features of a FeatureCollection page written straight into one reused buffer from the page's binary columns
 * (page-columns.ts): the same bytes protobufjs writes (test/unit/pbf-writer.spec.ts compares them), without an object
 * per value and a fork per nested message, which made protobufjs's encoding cost more than PostgreSQL building the page.
 */
import { FieldType, GeometryType } from '../../layers/layer-schema';
import { PbfPage } from './page-columns';
import { pointOnGrid } from './grid';
import { PbfGeometry, pbfGeometry } from './pbf-features';

const EMPTY = Buffer.alloc(0);
const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

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

/** The Value member each field type is written as (feature-collection.proto). */
const As = { Uint: 0, Sint: 1, Sint64: 2, Float: 3, Double: 4, String: 5 } as const;

const AS: Record<FieldType, number> = {
  esriFieldTypeOID: As.Uint,
  esriFieldTypeSmallInteger: As.Sint,
  esriFieldTypeInteger: As.Sint,
  esriFieldTypeBigInteger: As.Sint64,
  esriFieldTypeSingle: As.Float,
  esriFieldTypeDouble: As.Double,
  esriFieldTypeString: As.String,
  esriFieldTypeDate: As.Sint64,
  esriFieldTypeGUID: As.String,
  esriFieldTypeGlobalID: As.String,
};

/** A big-endian int4 of a text column (its value's byte length). */
const int4 = (c: Buffer, p: number) => (c[p] << 24) | (c[p + 1] << 16) | (c[p + 2] << 8) | c[p + 3];

/** The unsigned varint of `v` (an int32, as protobufjs writes uint32) at `p` of `b`; returns the position after it. */
function putVarint32(b: Buffer, p: number, v: number): number {
  v >>>= 0;
  while (v > 127) {
    b[p++] = (v & 127) | 128;
    v >>>= 7;
  }
  b[p++] = v;
  return p;
}

/**
 * varint64 (above), zig-zagged, at `p` of `b`; returns the position after it. Whole numbers within ±2^30 (grid
 * coordinates, most integers) take the 32-bit way, which gives the same bytes.
 */
function putSint64(b: Buffer, p: number, value: number): number {
  if ((value | 0) === value && value >= -1073741824 && value < 1073741824) {
    let z = value >= 0 ? value * 2 : -value * 2 - 1;
    while (z > 127) {
      b[p++] = (z & 127) | 128;
      z >>>= 7;
    }
    b[p++] = z;
    return p;
  }
  pos = p;
  varint64(value, true);
  return pos;
}

/** Where a float or double is turned into its little-endian bytes; a NaN is written as JavaScript's own, as protobufjs
 * writes it, not with the sign or payload it may have had in the database. */
const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);
const scratch32 = new Float32Array(1);
const scratch32Bytes = new Uint8Array(scratch32.buffer);

/** At most the bytes a feature takes beside its strings and shapes: 13 per number attribute, the feature's own framing. */
const featureBound = (n: number) => 16 + 13 * n + 32;

/**
 * FeatureResult.features (field 15) from an f=pbf page as PostgreSQL sends it (page-columns.ts): each field's value
 * from its column, then, when `geometryType` is given, the geometry, and the centroid when `centroids` is set. The
 * bytes returned are overwritten by the next call. The loop keeps the buffer and position in locals, with room made
 * once per feature: calls per value were most of the writer's time.
 */
export function writeFeatures(page: PbfPage, fields: { type: FieldType }[], geometryType?: GeometryType, centroids = false): Buffer {
  const as = fields.map((f) => AS[f.type]);
  const n = fields.length;
  const slots = page.columns.length;
  // Numbers are read where they lie, big-endian, through a view of their column; text by byte offset. `at` is where
  // each column's next value is: its index for numbers, its byte offset for text.
  const views = page.columns.map((c) => (c ? new DataView(c.buffer, c.byteOffset, c.length) : EMPTY_VIEW));
  const texts = page.columns.map((c) => c ?? EMPTY);
  const at = new Array<number>(slots).fill(0);
  const nulls = page.nulls ?? EMPTY;
  const bound = featureBound(n);
  const onGrid = page.pointGrid && pointOnGrid(page.pointGrid);
  const xy = new Float64Array(2);
  let next = 0;
  let nextRow = nulls.length ? int4(nulls, 0) : 0;
  let b = buf;
  let p = 0;
  for (let row = 1; row <= page.count; row++) {
    // Where this feature's null flags are, when it has a null.
    let flags = -1;
    if (row === nextRow) {
      flags = next + 4;
      next = flags + slots;
      nextRow = next < nulls.length ? int4(nulls, next) : 0;
    }
    if (p + bound > b.length) {
      pos = p;
      room(bound);
      b = buf;
    }
    b[p++] = 0x7a; // FeatureResult.features = 15
    const feature = p++;
    for (let i = 0; i < n; i++) {
      if (flags >= 0 && nulls[flags + i] !== 0) {
        b[p++] = 0x0a; // Feature.attributes = 1; null is an empty Value
        b[p++] = 0;
        continue;
      }
      const k = at[i]++;
      switch (as[i]) {
        case As.Uint: {
          b[p++] = 0x0a;
          const mark = p++;
          b[p++] = 0x28;
          p = putVarint32(b, p, views[i].getInt32(k * 4));
          b[mark] = p - mark - 1;
          break;
        }
        case As.Sint: {
          const v = views[i].getInt32(k * 4);
          b[p++] = 0x0a;
          const mark = p++;
          b[p++] = 0x20;
          p = putVarint32(b, p, (v << 1) ^ (v >> 31));
          b[mark] = p - mark - 1;
          break;
        }
        case As.Sint64: {
          b[p++] = 0x0a;
          const mark = p++;
          b[p++] = 0x40;
          p = putSint64(b, p, views[i].getFloat64(k * 8));
          b[mark] = p - mark - 1;
          break;
        }
        case As.Float: {
          b[p++] = 0x0a;
          b[p++] = 5;
          b[p++] = 0x15;
          const v = views[i].getFloat64(k * 8);
          scratch32[0] = v === v ? v : NaN;
          for (let j = 0; j < 4; j++) b[p++] = scratch32Bytes[j];
          break;
        }
        case As.Double: {
          b[p++] = 0x0a;
          b[p++] = 9;
          b[p++] = 0x19;
          const v = views[i].getFloat64(k * 8);
          scratch[0] = v === v ? v : NaN;
          for (let j = 0; j < 8; j++) b[p++] = scratchBytes[j];
          break;
        }
        case As.String: {
          const c = texts[i];
          const len = int4(c, k);
          const from = k + 4;
          at[i] = from + len;
          // Value.stringValue = 1: its tag, length and bytes, inside the attribute's tag and length.
          const inner = 1 + (len < 128 ? 1 : len < 16384 ? 2 : len < 2097152 ? 3 : len < 268435456 ? 4 : 5) + len;
          if (p + inner + 10 + bound > b.length) {
            pos = p;
            room(inner + 10 + bound);
            b = buf;
          }
          b[p++] = 0x0a;
          p = putVarint32(b, p, inner);
          b[p++] = 0x0a;
          p = putVarint32(b, p, len);
          // Buffer.copy costs more than the loop for the short strings most attributes are.
          if (len > 64) c.copy(b, p, from, from + len);
          else for (let j = 0; j < len; j++) b[p + j] = c[from + j];
          p += len;
          break;
        }
      }
    }
    if (geometryType && (flags < 0 || nulls[flags + n] === 0)) {
      if (geometryType === 'esriGeometryPoint') {
        // A point has no lengths: its one vertex is the geometry.
        const k = at[n];
        const x = views[n].getFloat64(k * 8);
        const y = views[n].getFloat64(k * 8 + 8);
        if (onGrid) onGrid(x, y, xy);
        else {
          xy[0] = x;
          xy[1] = y;
        }
        // A point off the grid (past the largest double: grid.ts, gridCoordinates) has no geometry, as other shapes.
        if (Number.isFinite(xy[0]) && Number.isFinite(xy[1])) {
          b[p++] = 0x12; // Feature.geometry = 2
          const mark = p++;
          b[p++] = 0x1a; // Geometry.coords = 3, packed sint64
          const inner = p++;
          p = putSint64(b, p, xy[0]);
          p = putSint64(b, p, xy[1]);
          b[inner] = p - inner - 1;
          b[mark] = p - mark - 1;
        }
        at[n] = k + 2;
      } else {
        const c = texts[n];
        const from = at[n];
        const len = int4(c, from);
        const parts = pbfGeometry(geometryType, c.toString('latin1', from + 4, from + 4 + len));
        at[n] = from + 4 + len;
        if (parts) {
          pos = p;
          geometry(0x12, parts);
          p = pos;
          b = buf;
        }
      }
    }
    const ci = geometryType ? n + 1 : n;
    if (centroids && (flags < 0 || nulls[flags + ci] === 0)) {
      const c = texts[ci];
      const from = at[ci];
      const len = int4(c, from);
      const centroid = pbfGeometry('esriGeometryPoint', c.toString('latin1', from + 4, from + 4 + len));
      at[ci] = from + 4 + len;
      if (centroid) {
        pos = p;
        geometry(0x22, centroid); // Feature.centroid = 4
        p = pos;
        b = buf;
      }
    }
    pos = p;
    close(feature);
    p = pos;
    b = buf;
  }
  // A view of the shared buffer, good until the next page: the caller copies it into the reply at once.
  return buf.subarray(0, p);
}

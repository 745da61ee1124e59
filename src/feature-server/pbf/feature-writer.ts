/**
 * The features of a FeatureCollection page written straight into one reused buffer from the page's binary columns
 * (page-columns.ts): the same bytes protobufjs writes (test/unit/pbf-writer.spec.ts compares them), without an object
 * per value and a fork per nested message, which made protobufjs's encoding cost more than PostgreSQL building the page.
 */
import { FieldType, GeometryType } from '../../layers/layer-schema';
import { COLUMN_KIND, PbfPage } from './page-columns';
import { PbfGeometry, pbfGeometry } from './pbf-features';

const EMPTY = Buffer.alloc(0);
const EMPTY_INTS = new Int32Array(0);
const EMPTY_DOUBLES = new Float64Array(0);

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

function tagged(tag: number): void {
  room(1);
  buf[pos++] = tag;
}

/** A double as protobufjs writes it: a NaN read from the page may carry a sign or payload, which JavaScript's has not. */
function double(v: number): void {
  room(8);
  pos = buf.writeDoubleLE(v === v ? v : NaN, pos);
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

/** A column of big-endian float8 as numbers: copied to an aligned buffer and swapped at once, then read by index. */
function float64s(c: Buffer | null): Float64Array {
  const out = new Float64Array((c?.length ?? 0) >> 3);
  if (c) Buffer.from(out.buffer).fill(c, 0, out.length * 8).swap64();
  return out;
}

function int32s(c: Buffer | null): Int32Array {
  const out = new Int32Array((c?.length ?? 0) >> 2);
  if (c) Buffer.from(out.buffer).fill(c, 0, out.length * 4).swap32();
  return out;
}

/** A big-endian int4 of a text column (its value's byte length). */
const int4 = (c: Buffer, p: number) => (c[p] << 24) | (c[p + 1] << 16) | (c[p + 2] << 8) | c[p + 3];

/** A text value of `len` bytes at `p` of its column, as a Value's stringValue. */
function text(c: Buffer, p: number, len: number): void {
  tagged(0x0a);
  varint32(len);
  room(len);
  // Buffer.copy costs more than the loop for the short strings most attributes are.
  if (len > 64) c.copy(buf, pos, p, p + len);
  else for (let k = 0; k < len; k++) buf[pos + k] = c[p + k];
  pos += len;
}

/**
 * FeatureResult.features (field 15) from an f=pbf page as PostgreSQL sends it (page-columns.ts): each field's value
 * from its column, then, when `geometryType` is given, the geometry, and the centroid when `centroids` is set. The
 * bytes returned are overwritten by the next call.
 */
export function writeFeatures(page: PbfPage, fields: { type: FieldType }[], geometryType?: GeometryType, centroids = false): Buffer {
  const as = fields.map((f) => AS[f.type]);
  const n = fields.length;
  const slots = page.columns.length;
  // Each column read by the view that suits it: numbers by index, text by byte offset; `at` is where each is.
  const ints = page.columns.map((c, i) => (i < n && COLUMN_KIND[fields[i].type] === 'int4' ? int32s(c) : EMPTY_INTS));
  const doubles = page.columns.map((c, i) =>
    (i < n && COLUMN_KIND[fields[i].type] === 'float8') || (i === n && geometryType === 'esriGeometryPoint') ? float64s(c) : EMPTY_DOUBLES,
  );
  const texts = page.columns.map((c) => c ?? EMPTY);
  const at = new Array<number>(slots).fill(0);
  const nulls = page.nulls ?? EMPTY;
  let next = 0;
  let nextRow = nulls.length ? int4(nulls, 0) : 0;
  pos = 0;
  for (let row = 1; row <= page.count; row++) {
    // Where this feature's null flags are, when it has a null.
    let flags = -1;
    if (row === nextRow) {
      flags = next + 4;
      next = flags + slots;
      nextRow = next < nulls.length ? int4(nulls, next) : 0;
    }
    const feature = open(0x7a); // FeatureResult.features = 15
    for (let i = 0; i < n; i++) {
      const mark = open(0x0a); // Feature.attributes = 1; null is an empty Value
      if (flags < 0 || nulls[flags + i] === 0) {
        const k = at[i]++;
        switch (as[i]) {
          case As.Uint:
            tagged(0x28);
            varint32(ints[i][k]);
            break;
          case As.Sint: {
            const v = ints[i][k];
            tagged(0x20);
            varint32((v << 1) ^ (v >> 31));
            break;
          }
          case As.Sint64:
            tagged(0x40);
            varint64(doubles[i][k], true);
            break;
          case As.Float:
            tagged(0x15);
            room(4);
            pos = buf.writeFloatLE(doubles[i][k], pos);
            break;
          case As.Double:
            tagged(0x19);
            double(doubles[i][k]);
            break;
          case As.String: {
            const c = texts[i];
            const len = int4(c, k);
            text(c, k + 4, len);
            at[i] = k + 4 + len;
            break;
          }
        }
      }
      close(mark);
    }
    if (geometryType && (flags < 0 || nulls[flags + n] === 0)) {
      if (geometryType === 'esriGeometryPoint') {
        // A point has no lengths: its one vertex is the geometry.
        const k = at[n];
        const mark = open(0x12); // Feature.geometry = 2
        const inner = open(0x1a);
        varint64(doubles[n][k], true);
        varint64(doubles[n][k + 1], true);
        close(inner);
        close(mark);
        at[n] = k + 2;
      } else {
        const c = texts[n];
        const p = at[n];
        const len = int4(c, p);
        const parts = pbfGeometry(geometryType, c.toString('latin1', p + 4, p + 4 + len));
        if (parts) geometry(0x12, parts);
        at[n] = p + 4 + len;
      }
    }
    const ci = geometryType ? n + 1 : n;
    if (centroids && (flags < 0 || nulls[flags + ci] === 0)) {
      const c = texts[ci];
      const p = at[ci];
      const len = int4(c, p);
      const centroid = pbfGeometry('esriGeometryPoint', c.toString('latin1', p + 4, p + 4 + len));
      if (centroid) geometry(0x22, centroid); // Feature.centroid = 4
      at[ci] = p + 4 + len;
    }
    close(feature);
  }
  // A view of the shared buffer, good until the next page: the caller copies it into the reply at once.
  return buf.subarray(0, pos);
}

/**
 * A GeoPackage R-tree packed sort-tile-recursive and encoded as SQLite's rtree module stores it, so the
 * index of a large layer is written as a few hundred thousand rows instead of built by millions of rtree inserts
 * (SQLite's insertion is CPU-bound; GDAL 3.8 bulk-loads for the same reason, GDAL 3.6 does not). The storage layout
 * follows GDAL's bulk loader (sqlite_rtree_bulk_load.c, MIT licence, Even Rouault). PostgreSQL sorts the entries into
 * leaf order (buildRtreeEntriesSql), so only the leaves' boxes are packed here: holding every entry took too much
 * memory on large layers (README.md).
 */

/** SQLite's rtree keeps at most 51 cells per node, whatever the page size. */
const MAX_CELLS = 51;
const CELL_BYTES = 24;
const ULP = 1 / 8388608;

/** SQLite's rtreeValueDown: the float32 at or below d (a box is only ever rounded outward). */
export function valueDown(d: number): number {
  const f = Math.fround(d);
  return f > d ? Math.fround(d * (d < 0 ? 1 + ULP : 1 - ULP)) : f;
}

/** SQLite's rtreeValueUp: the float32 at or above d. */
export function valueUp(d: number): number {
  const f = Math.fround(d);
  return f < d ? Math.fround(d * (d < 0 ? 1 - ULP : 1 + ULP)) : f;
}

/** The node size SQLite picks for a new rtree in a database of this page size (read back from the root's length). */
export function rtreeNodeBytes(pageSize: number): number {
  return Math.min(pageSize - 64, 4 + CELL_BYTES * MAX_CELLS);
}

/** One level above the leaves: its nodes, each a run of `order` (items of the level below). */
interface Level {
  order: Uint32Array;
  /** Node g holds order[start[g] .. start[g + 1]). */
  start: Uint32Array;
  box: Float32Array;
}

/**
 * The tree's numbering, fixed by the entry count alone: every level groups its items into ceil(n / cap) nodes (STR's
 * slices are whole multiples of cap, so only the last node is short), so a leaf's node number is known when it is
 * written, before the levels above exist.
 */
export interface RtreeShape {
  nodeBytes: number;
  cap: number;
  /** Nodes per level, leaves first, root (1) last. */
  counts: number[];
  /** Node number of the first node of each level: the root is node 1, then each level below in turn. */
  base: number[];
}

export function rtreeShape(entries: number, pageSize: number): RtreeShape {
  const nodeBytes = rtreeNodeBytes(pageSize);
  const cap = Math.floor((nodeBytes - 4) / CELL_BYTES);
  const counts = [Math.ceil(entries / cap)];
  while (counts[counts.length - 1] > 1) counts.push(Math.ceil(counts[counts.length - 1] / cap));
  const base: number[] = new Array<number>(counts.length);
  for (let k = counts.length - 1, next = 1; k >= 0; next += counts[k--]) base[k] = next;
  return { nodeBytes, cap, counts, base };
}

/** Entries per STR slice for n items: ceil(sqrt(nodes)) whole nodes. */
export function sliceSize(n: number, cap: number): number {
  return Math.ceil(Math.sqrt(Math.ceil(n / cap))) * cap;
}

const KEY_BITS = 21;
const KEY_SCALE = 2 ** 32;

/**
 * Orders items by a box centre: the centre quantised to 21 bits over the extent, with the item index in the low 32
 * bits of one double, so the native typed-array sort does the work (a comparator sort of 5M items takes seconds).
 * The order only affects how tight the tree is, never whether it is right.
 */
function sortByCentre(items: Uint32Array, box: Float32Array, axis: 0 | 2, keys: Float64Array): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of items) {
    const c = box[i * 4 + axis] + box[i * 4 + axis + 1];
    if (c < lo) lo = c;
    if (c > hi) hi = c;
  }
  const scale = hi > lo ? (2 ** KEY_BITS - 1) / (hi - lo) : 0;
  const k = keys.subarray(0, items.length);
  for (let j = 0; j < items.length; j++) {
    const i = items[j];
    k[j] = Math.floor((box[i * 4 + axis] + box[i * 4 + axis + 1] - lo) * scale) * KEY_SCALE + i;
  }
  k.sort();
  for (let j = 0; j < items.length; j++) items[j] = k[j] % KEY_SCALE;
}

/** Groups n items (boxes in `box`) into nodes of up to `cap`: STR's vertical slices, each cut into runs along y. */
function packLevel(n: number, box: Float32Array, cap: number, keys: Float64Array): Level {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const perSlice = sliceSize(n, cap);
  sortByCentre(order, box, 0, keys);
  for (let s = 0; s < n; s += perSlice) sortByCentre(order.subarray(s, Math.min(n, s + perSlice)), box, 2, keys);
  // Runs never straddle slices, so every node is cut from one slice.
  const starts: number[] = [];
  for (let s = 0; s < n; s += perSlice) for (let j = s; j < Math.min(n, s + perSlice); j += cap) starts.push(j);
  starts.push(n);
  const start = Uint32Array.from(starts);
  const out = new Float32Array((start.length - 1) * 4);
  for (let g = 0; g + 1 < start.length; g++) {
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (let j = start[g]; j < start[g + 1]; j++) {
      const b = order[j] * 4;
      x0 = Math.min(x0, box[b]);
      x1 = Math.max(x1, box[b + 1]);
      y0 = Math.min(y0, box[b + 2]);
      y1 = Math.max(y1, box[b + 3]);
    }
    out.set([x0, x1, y0, y1], g * 4);
  }
  return { order, start, box: out };
}

/** The levels above the leaves (index k - 1 holds level k), packed from the leaves' boxes in leaf order. */
export function packUpper(shape: RtreeShape, leafBox: Float32Array): Level[] {
  const keys = new Float64Array(shape.counts[0]);
  const upper: Level[] = [];
  for (let k = 1; k < shape.counts.length; k++) {
    const level = packLevel(shape.counts[k - 1], k === 1 ? leafBox : upper[k - 2].box, shape.cap, keys);
    if (level.start.length - 1 !== shape.counts[k])
      throw new Error(`R-tree level ${k}: ${level.start.length - 1} nodes, expected ${shape.counts[k]}`);
    upper.push(level);
  }
  return upper;
}

/**
 * A node as the rtree stores it: a big-endian 16-bit depth (the root's only: the levels above the leaves), a 16-bit
 * cell count, then per cell a 64-bit id (a child's node number, or a leaf's fid) and its box as four big-endian
 * float32, zero-padded to the node size. Cell j is ids(j) with box[item(j) * 4 ..].
 */
function encode(
  nodeBytes: number,
  depth: number,
  n: number,
  id: (j: number) => number,
  item: (j: number) => number,
  box: Float32Array,
  out: Buffer,
): Buffer {
  out.fill(0, 0, nodeBytes);
  out.writeUInt16BE(depth, 0);
  out.writeUInt16BE(n, 2);
  for (let j = 0, p = 4; j < n; j++, p += CELL_BYTES) {
    const i = item(j);
    out.writeBigInt64BE(BigInt(id(j)), p);
    out.writeFloatBE(box[i * 4], p + 8);
    out.writeFloatBE(box[i * 4 + 1], p + 12);
    out.writeFloatBE(box[i * 4 + 2], p + 16);
    out.writeFloatBE(box[i * 4 + 3], p + 20);
  }
  return out.subarray(0, nodeBytes);
}

/** A leaf of n entries (fids, and boxes already rounded to float32). Its depth is 0 even when it is the root. */
export function encodeLeaf(shape: RtreeShape, n: number, fid: Float64Array, box: Float32Array, out: Buffer): Buffer {
  return encode(
    shape.nodeBytes,
    0,
    n,
    (j) => fid[j],
    (j) => j,
    box,
    out,
  );
}

/** Node g of level k >= 1 (upper from packUpper, leafBox the leaves' boxes in leaf order). */
export function encodeUpper(shape: RtreeShape, upper: Level[], leafBox: Float32Array, k: number, g: number, out: Buffer): Buffer {
  const level = upper[k - 1];
  const from = level.start[g];
  const top = shape.counts.length - 1;
  const order = level.order;
  return encode(
    shape.nodeBytes,
    k === top ? top : 0,
    level.start[g + 1] - from,
    (j) => shape.base[k - 1] + order[from + j],
    (j) => order[from + j],
    k === 1 ? leafBox : upper[k - 2].box,
    out,
  );
}

/**
 * A GeoPackage R-tree packed in memory (sort-tile-recursive) and encoded as SQLite's rtree module stores it, so the
 * index of a large layer is written as a few hundred thousand rows instead of built by millions of rtree inserts
 * (SQLite's insertion is CPU-bound: 8 s per million points; GDAL 3.8 bulk-loads for the same reason, GDAL 3.6 does
 * not). The storage layout follows GDAL's bulk loader (sqlite_rtree_bulk_load.c, MIT licence, Even Rouault).
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

/** Index entries: fids and their boxes (minx, maxx, miny, maxy per entry) already rounded to float32. */
export interface RtreeEntries {
  count: number;
  fid: Float64Array;
  box: Float32Array;
}

/** One level of the tree: its nodes, each a run of `order` (items of the level below, or entries for leaves). */
interface Level {
  order: Uint32Array;
  /** Node g holds order[start[g] .. start[g + 1]). */
  start: Uint32Array;
  box: Float32Array;
}

export interface PackedRtree {
  nodeBytes: number;
  /** Leaves first, root last. */
  levels: Level[];
  /** Node number of the first node of each level: the root is node 1, then each level below in turn. */
  base: number[];
  nodeCount: number;
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
  const nodes = Math.ceil(n / cap);
  const perSlice = Math.ceil(Math.sqrt(nodes)) * cap;
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

/** Packs the entries bottom-up until one node, the root, remains. Needs at least one entry. */
export function packRtree(entries: RtreeEntries, pageSize: number): PackedRtree {
  const nodeBytes = rtreeNodeBytes(pageSize);
  const cap = Math.floor((nodeBytes - 4) / CELL_BYTES);
  const keys = new Float64Array(entries.count);
  const levels = [packLevel(entries.count, entries.box, cap, keys)];
  for (let top = levels[0]; top.start.length - 1 > 1; top = levels[levels.length - 1])
    levels.push(packLevel(top.start.length - 1, top.box, cap, keys));
  const base: number[] = new Array<number>(levels.length);
  let next = 1;
  for (let k = levels.length - 1; k >= 0; k--) {
    base[k] = next;
    next += levels[k].start.length - 1;
  }
  return { nodeBytes, levels, base, nodeCount: next - 1 };
}

/**
 * Node `g` of level `k` as the rtree stores it: a big-endian 16-bit depth (the root's only: the levels above the
 * leaves), a 16-bit cell count, then per cell a 64-bit id (a child's node number, or a leaf's fid) and its box as four
 * big-endian float32, zero-padded to the node size.
 */
export function encodeNode(t: PackedRtree, entries: RtreeEntries, k: number, g: number, out: Buffer): Buffer {
  const level = t.levels[k];
  const from = level.start[g];
  const to = level.start[g + 1];
  out.fill(0, 0, t.nodeBytes);
  out.writeUInt16BE(k === t.levels.length - 1 ? k : 0, 0);
  out.writeUInt16BE(to - from, 2);
  const box = k === 0 ? entries.box : t.levels[k - 1].box;
  for (let j = from, p = 4; j < to; j++, p += CELL_BYTES) {
    const i = level.order[j];
    out.writeBigInt64BE(BigInt(k === 0 ? entries.fid[i] : t.base[k - 1] + i), p);
    out.writeFloatBE(box[i * 4], p + 8);
    out.writeFloatBE(box[i * 4 + 1], p + 12);
    out.writeFloatBE(box[i * 4 + 2], p + 16);
    out.writeFloatBE(box[i * 4 + 3], p + 20);
  }
  return out.subarray(0, t.nodeBytes);
}

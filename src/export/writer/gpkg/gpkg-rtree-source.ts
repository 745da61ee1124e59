/**
 * The R-tree's entries read from PostGIS rather than from the GeoPackage: the same doubles GDAL wrote (no
 * reprojection is the caller's condition), at binary COPY speed, where reading 5M features back through GDAL would
 * cost more than the index saves.
 */
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dropSparePieces, givePiece } from '../copy/copy-rows';
import { valueDown, valueUp } from './gpkg-rtree-pack';

/** One row: the fid as int8, then xmin, xmax, ymin, ymax as float8, all big-endian. */
const RECORD = 40;

/**
 * What the GeoPackage must hold too (the rows may have changed between GDAL's read and this one): integer sums of
 * the fids and of trunc(coordinate * scale), which SQLite computes exactly as well. Coordinates within 2^36 once
 * scaled keep a sum over 2^26 rows inside SQLite's 64-bit integers (its sum() fails on overflow, never wraps).
 */
export interface EntrySums {
  count: number;
  fidSum: bigint;
  /** Multiplier (a power of two) applied to every coordinate before truncating to an integer. */
  scale: number;
  coordSums: [bigint, bigint, bigint, bigint];
}

/** The largest power of two that keeps coordinates up to maxAbs within 2^36 once scaled (see EntrySums). */
export function sumScale(maxAbs: number): number {
  return 2 ** (36 - Math.ceil(Math.log2(Math.max(maxAbs, 1) + 1)));
}

/** Integer sums are added as Numbers in runs this long (below 2^53 for fids and scaled coordinates), then as BigInt. */
const RUN = 1 << 15;

/** Receives the entries a leaf at a time, in the query's order: n fids and their boxes (reused buffers). */
export type LeafHandler = (n: number, fid: Float64Array, box: Float32Array) => Promise<void>;

/**
 * Cuts the records into leaves of `cap` entries, boxes rounded outward to float32 as SQLite's rtree stores them; the
 * exact doubles only feed the sums. Holds one leaf, whatever the row count.
 */
class LeafSink extends Writable {
  private readonly fid: Float64Array;
  private readonly box: Float32Array;
  private n = 0;
  count = 0;
  readonly sums: EntrySums;
  private carry = Buffer.alloc(0);
  private readonly run = [0, 0, 0, 0, 0];

  constructor(
    private readonly cap: number,
    private readonly expected: number,
    scale: number,
    private readonly onLeaf: LeafHandler,
  ) {
    super();
    this.fid = new Float64Array(cap);
    this.box = new Float32Array(cap * 4);
    this.sums = { count: 0, fidSum: 0n, scale, coordSums: [0n, 0n, 0n, 0n] };
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error) => void): void {
    // Read through (the carry is a copy): the reader fills the piece again; a new piece per chunk counted as external
    // memory, which made V8 mark its whole heap again and again.
    this.take(chunk).then(() => {
      if (!this.destroyed) givePiece(chunk); // after a failure, the spares are already dropped
      done();
    }, done);
  }

  private async take(chunk: Buffer): Promise<void> {
    // A record split between chunks is completed in `carry`: concatenating whole chunks instead left a megabyte of
    // garbage per chunk, hundreds of MB over five million rows.
    let p = 0;
    if (this.carry.length) {
      p = Math.min(RECORD - this.carry.length, chunk.length);
      this.carry = Buffer.concat([this.carry, chunk.subarray(0, p)]);
      if (this.carry.length === RECORD) {
        if (this.add(this.carry, 0)) await this.leaf();
        this.carry = Buffer.alloc(0);
      }
    }
    // Only a full leaf waits: an await per row made a promise per row, five million for five million points.
    for (; p + RECORD <= chunk.length; p += RECORD) if (this.add(chunk, p)) await this.leaf();
    if (p < chunk.length) this.carry = Buffer.from(chunk.subarray(p));
  }

  /** Takes one record; true when it filled the leaf. */
  private add(buf: Buffer, p: number): boolean {
    // The tree's numbering was fixed from the count taken in the same snapshot; more rows mean a broken query.
    if (this.count === this.expected) throw new Error(`R-tree entries: more than the ${this.expected} counted`);
    this.count++;
    const i = this.n++;
    // The int8 from its two halves: readBigInt64BE allocated a BigInt per row. Exact below 2^53, as Number() was.
    const fid = buf.readInt32BE(p) * 4294967296 + buf.readUInt32BE(p + 4);
    this.fid[i] = fid;
    const run = this.run;
    run[4] += fid;
    for (let c = 0; c < 4; c++) {
      const v = buf.readDoubleBE(p + 8 + c * 8);
      run[c] += Math.trunc(v * this.sums.scale);
      this.box[i * 4 + c] = c % 2 ? valueUp(v) : valueDown(v);
    }
    if (this.count % RUN === 0) this.flushRun();
    return this.n === this.cap;
  }

  private async leaf(): Promise<void> {
    const n = this.n;
    this.n = 0;
    await this.onLeaf(n, this.fid, this.box);
  }

  private flushRun(): void {
    for (let c = 0; c < 4; c++) this.sums.coordSums[c] += BigInt(this.run[c]);
    this.sums.fidSum += BigInt(this.run[4]);
    this.run.fill(0);
  }

  override _final(done: (e?: Error) => void): void {
    this.flushRun();
    this.sums.count = this.count;
    if (this.carry.length) return done(new Error('R-tree entries: the stream ended in the middle of a row'));
    if (this.count !== this.expected) return done(new Error(`R-tree entries: ${this.count} rows, ${this.expected} counted`));
    (this.n ? this.leaf() : Promise.resolve()).then(() => done(), done);
  }
}

/**
 * Reads the entries query's rows (one bytea column of RECORD bytes per row in leaf order, see buildRtreeEntriesSql;
 * started with copyRows), which must be exactly `expected`, handing every `cap` of them to onLeaf; returns their
 * sums, coordinates scaled by `scale` (from sumScale).
 */
export async function streamRtreeLeaves(
  entries: Readable,
  expected: number,
  cap: number,
  scale: number,
  onLeaf: LeafHandler,
  signal?: AbortSignal,
): Promise<EntrySums> {
  const sink = new LeafSink(cap, expected, scale, onLeaf);
  try {
    await pipeline(entries, sink, { signal });
  } finally {
    dropSparePieces();
  }
  return sink.sums;
}

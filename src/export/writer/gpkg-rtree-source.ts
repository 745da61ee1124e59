/**
 * The R-tree's entries read from PostGIS rather than from the GeoPackage: the same doubles GDAL wrote (no
 * reprojection is the caller's condition), at binary COPY speed, where reading 5M features back through GDAL would
 * cost more than the index saves.
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { CopyRowsToBytes } from './copy-rows';
import { valueDown, valueUp, RtreeEntries } from './gpkg-rtree-pack';

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

/**
 * Collects the records into typed arrays sized for `capacity` rows (the GeoPackage's row count, an upper bound), boxes
 * rounded outward to float32 as SQLite's rtree stores them; the exact doubles only feed the sums.
 */
class EntrySink extends Writable {
  readonly fid: Float64Array;
  readonly box: Float32Array;
  count = 0;
  overflow = false;
  readonly sums: EntrySums;
  private carry = Buffer.alloc(0);
  private readonly run = [0, 0, 0, 0, 0];

  constructor(
    private readonly capacity: number,
    scale: number,
  ) {
    super();
    this.fid = new Float64Array(capacity);
    this.box = new Float32Array(capacity * 4);
    this.sums = { count: 0, fidSum: 0n, scale, coordSums: [0n, 0n, 0n, 0n] };
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error) => void): void {
    // A record split between chunks is completed in `carry`: concatenating whole chunks instead left a megabyte of
    // garbage per chunk, hundreds of MB over five million rows.
    let p = 0;
    if (this.carry.length) {
      p = Math.min(RECORD - this.carry.length, chunk.length);
      this.carry = Buffer.concat([this.carry, chunk.subarray(0, p)]);
      if (this.carry.length === RECORD) {
        this.add(this.carry, 0);
        this.carry = Buffer.alloc(0);
      }
    }
    for (; p + RECORD <= chunk.length && !this.overflow; p += RECORD) this.add(chunk, p);
    if (p < chunk.length && !this.overflow) this.carry = Buffer.from(chunk.subarray(p));
    done();
  }

  private add(buf: Buffer, p: number): void {
    if (this.overflow) return;
    if (this.count === this.capacity) {
      // More rows than the GeoPackage holds: they differ, which the caller learns from `overflow`.
      this.overflow = true;
      return;
    }
    const i = this.count++;
    const fid = Number(buf.readBigInt64BE(p));
    this.fid[i] = fid;
    const run = this.run;
    run[4] += fid;
    for (let c = 0; c < 4; c++) {
      const v = buf.readDoubleBE(p + 8 + c * 8);
      run[c] += Math.trunc(v * this.sums.scale);
      this.box[i * 4 + c] = c % 2 ? valueUp(v) : valueDown(v);
    }
    if (this.count % RUN === 0) this.flushRun();
  }

  private flushRun(): void {
    for (let c = 0; c < 4; c++) this.sums.coordSums[c] += BigInt(this.run[c]);
    this.sums.fidSum += BigInt(this.run[4]);
    this.run.fill(0);
  }

  override _final(done: (e?: Error) => void): void {
    this.flushRun();
    this.sums.count = this.count;
    done(this.carry.length ? new Error('R-tree entries: the stream ended in the middle of a row') : undefined);
  }
}

/**
 * Runs the entries query (one bytea column of RECORD bytes per row, see buildRtreeEntriesSql) and returns the
 * entries with their sums, coordinates scaled by `scale` (from sumScale); null when there are more than `capacity`.
 */
export async function readRtreeEntries(
  client: Client,
  query: string,
  capacity: number,
  scale: number,
  signal?: AbortSignal,
): Promise<{ entries: RtreeEntries; sums: EntrySums } | null> {
  const sink = new EntrySink(capacity, scale);
  await pipeline(client.query(copyTo(`COPY (${query}) TO STDOUT (FORMAT binary)`)), new CopyRowsToBytes(), sink, { signal });
  if (sink.overflow) return null;
  const n = sink.count;
  return { entries: { count: n, fid: sink.fid.subarray(0, n), box: sink.box.subarray(0, n * 4) }, sums: sink.sums };
}

import { availableParallelism } from 'node:os';
import { open, readdir, type FileHandle } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { constants as Z, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { writeAll } from '../write-all';

/**
 * Deflate level 1 by default: half the time of zlib's default level 6 for a zip hardly larger. Level 0 stores without
 * compressing (a download 2-4 times larger, no CPU beyond the CRC).
 */
export const DEFAULT_ZIP_LEVEL = 1;

/**
 * Each entry is deflated in independent chunks on libuv's thread pool, several at once, and the raw streams
 * joined (the pigz layout: every chunk ends on a sync flush and an empty final block closes the entry, so the
 * whole is one valid deflate stream). One deflate per file kept one core busy while the other idled; a chunk
 * restarting its dictionary costs well under 1% of size. The CRC is zlib's native one (Node >= 20.15): in
 * JavaScript it cost as much as level-1 deflate.
 *
 * Chunk 0 is the head of the file (HEAD bytes), where GDAL rewrites headers on close; the rest are CHUNK bytes.
 * That fixed layout lets ZipAhead deflate the body of a file while GDAL is still appending to it.
 */
export const HEAD = 64 * 1024;
export const CHUNK = 1 << 20;
const IN_FLIGHT = Math.min(4, Math.max(2, availableParallelism()));
const deflateAsync = promisify<Buffer, object, Buffer>(deflateRaw);
export const deflateChunk = (data: Buffer, level: number) => deflateAsync(data, { level, finishFlush: Z.Z_SYNC_FLUSH });
const FINAL_BLOCK = deflateRawSync(Buffer.alloc(0));

export interface ChunkRange {
  start: number;
  length: number;
}

/** Chunk k of a file of this size, or null past its end (an empty file has one empty chunk). */
export function chunkRange(k: number, size: number): ChunkRange | null {
  if (k === 0) return { start: 0, length: Math.min(HEAD, size) };
  const start = HEAD + (k - 1) * CHUNK;
  return start < size ? { start, length: Math.min(CHUNK, size - start) } : null;
}

/** A chunk deflated ahead of time: used only if the file still holds the same bytes there (same CRC). */
export interface DeflatedChunk extends ChunkRange {
  crc: number;
  read(): Promise<Buffer>;
}
/** Absolute file path → chunk index → what was deflated ahead. */
export type DeflatedAhead = Map<string, Map<number, DeflatedChunk>>;

const U32 = 0xffffffff;
/** Above this an entry's sizes go into ZIP64 fields (deflate can grow incompressible data by a little). */
const ZIP64_ENTRY = 0xf0000000;
const FLAG_UTF8 = 0x0800;
const UNIX_FILE = (0o100644 << 16) >>> 0;

/** Readers compare "version needed" between the two headers: 4.5 wherever the entry needs any ZIP64 field. */
const versionNeeded = (e: Entry, force: boolean) => (e.zip64 || force || e.offset >= U32 ? 45 : 20);

export interface ZipOptions {
  level?: number;
  signal?: AbortSignal;
  /** Write ZIP64 records even for small archives: how the tests reach the >4 GB layout without 4 GB of data. */
  forceZip64?: boolean;
  /** Chunks ZipAhead deflated while the files were written; each is checked against the final file. */
  ahead?: DeflatedAhead;
  /** Entries (by their path in the zip) stored as they are, whatever `level` says. */
  stored?: (name: string) => boolean;
}

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  size: number;
  compressed: number;
  method: 0 | 8;
  zip64: boolean;
  time: number;
  date: number;
}

/** Every file under dir, as zip entry names relative to it ('/'-separated), sorted for a stable layout. */
export async function listEntries(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? posix.join(prefix, e.name) : e.name;
    if (e.isDirectory()) out.push(...(await listEntries(join(dir, e.name), rel)));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort();
}

/** DOS date and time fields (local time, as zip tools show them); they hold the years 1980 to 2107 only. */
function dosDateTime(d: Date): { time: number; date: number } {
  if (d.getFullYear() < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (d.getFullYear() > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** The fields both headers have, in the same order (APPNOTE 4.3.7 and 4.3.12), written from `at`. */
function writeSharedFields(b: Buffer, at: number, e: Entry, force: boolean, extraLength: number): void {
  b.writeUInt16LE(versionNeeded(e, force), at);
  b.writeUInt16LE(FLAG_UTF8, at + 2);
  b.writeUInt16LE(e.method, at + 4);
  b.writeUInt16LE(e.time, at + 6);
  b.writeUInt16LE(e.date, at + 8);
  b.writeUInt32LE(e.crc, at + 10);
  // 0xFFFFFFFF says the size is in the ZIP64 extra field.
  b.writeUInt32LE(e.zip64 ? U32 : e.compressed, at + 14);
  b.writeUInt32LE(e.zip64 ? U32 : e.size, at + 18);
  b.writeUInt16LE(e.name.length, at + 22);
  b.writeUInt16LE(extraLength, at + 24);
}

/** A ZIP64 extended information extra field (id 1) holding these values. */
function writeZip64Extra(b: Buffer, at: number, values: number[]): void {
  b.writeUInt16LE(0x0001, at);
  b.writeUInt16LE(8 * values.length, at + 2);
  values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), at + 4 + 8 * i));
}

function localHeader(e: Entry, force: boolean): Buffer {
  // The local header's ZIP64 field always holds both sizes (APPNOTE 4.5.3).
  const extra = e.zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + e.name.length + extra);
  b.writeUInt32LE(0x04034b50, 0);
  writeSharedFields(b, 4, e, force, extra);
  e.name.copy(b, 30);
  if (e.zip64) writeZip64Extra(b, 30 + e.name.length, [e.size, e.compressed]);
  return b;
}

function centralHeader(e: Entry, force: boolean): Buffer {
  // Only the fields that do not fit go into the ZIP64 extra, in this order (APPNOTE 4.5.3).
  const offsetIn64 = e.offset >= U32 || force;
  const big = [...(e.zip64 ? [e.size, e.compressed] : []), ...(offsetIn64 ? [e.offset] : [])];
  const extra = big.length ? 4 + 8 * big.length : 0;
  const b = Buffer.alloc(46 + e.name.length + extra);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE((3 << 8) | 45, 4); // made by Unix, so the external attributes read as a file mode
  writeSharedFields(b, 6, e, force, extra);
  b.writeUInt32LE(UNIX_FILE, 38);
  b.writeUInt32LE(offsetIn64 ? U32 : e.offset, 42);
  e.name.copy(b, 46);
  if (big.length) writeZip64Extra(b, 46 + e.name.length, big);
  return b;
}

function endRecords(count: number, cdOffset: number, cdSize: number, force: boolean): Buffer {
  const zip64 = force || count >= 0xffff || cdOffset >= U32 || cdSize >= U32;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(zip64 ? 0xffff : count, 8);
  eocd.writeUInt16LE(zip64 ? 0xffff : count, 10);
  eocd.writeUInt32LE(zip64 ? U32 : cdSize, 12);
  eocd.writeUInt32LE(zip64 ? U32 : cdOffset, 16);
  if (!zip64) return eocd;
  const rec = Buffer.alloc(56 + 20);
  rec.writeUInt32LE(0x06064b50, 0);
  rec.writeBigUInt64LE(44n, 4); // size of the rest of the record
  rec.writeUInt16LE((3 << 8) | 45, 12);
  rec.writeUInt16LE(45, 14);
  rec.writeBigUInt64LE(BigInt(count), 24);
  rec.writeBigUInt64LE(BigInt(count), 32);
  rec.writeBigUInt64LE(BigInt(cdSize), 40);
  rec.writeBigUInt64LE(BigInt(cdOffset), 48);
  rec.writeUInt32LE(0x07064b50, 56); // the locator, pointing back at the record just written
  rec.writeBigUInt64LE(BigInt(cdOffset + cdSize), 64);
  rec.writeUInt32LE(1, 72);
  return Buffer.concat([rec, eocd]);
}

/**
 * Copies (level 0) or deflates one file into out at position; returns the entry's CRC and sizes. Every chunk is
 * read back for the CRC, so a chunk deflated ahead whose bytes GDAL changed afterwards is deflated again.
 */
async function writeData(
  src: FileHandle,
  size: number,
  out: FileHandle,
  position: number,
  level: number,
  ahead?: Map<number, DeflatedChunk>,
  signal?: AbortSignal,
) {
  const pending: Promise<Buffer>[] = [];
  let crc = 0;
  let written = 0;
  const put = async (data: Buffer) => {
    await writeAll(out, data, position + written);
    written += data.length;
  };
  // Reads run a few chunks ahead of the CRC on this thread, so the CRC never waits for the disk.
  const reads: Promise<Buffer>[] = [];
  let toRead = 0;
  const readAhead = () => {
    for (let r = chunkRange(toRead, size); r && reads.length < IN_FLIGHT; r = chunkRange(++toRead, size)) {
      const { start, length } = r;
      const buf = Buffer.allocUnsafe(length);
      const read = src.read(buf, 0, length, start).then(({ bytesRead }) => {
        if (bytesRead !== length)
          throw new Error(`zip: a file changed size while it was being zipped (read ${bytesRead} of ${length} bytes)`);
        return buf;
      });
      read.catch(() => undefined); // awaited in order below
      reads.push(read);
    }
  };
  for (let k = 0, r = chunkRange(0, size); r; r = chunkRange(++k, size)) {
    signal?.throwIfAborted();
    readAhead();
    const buf = await reads.shift()!;
    crc = crc32(buf, crc);
    const early = ahead?.get(k);
    const reuse = early && early.start === r.start && early.length === r.length && early.crc === crc32(buf);
    // A spilled chunk that cannot be read back is deflated again: ZipAhead may only ever save time.
    const data = level === 0 ? Promise.resolve(buf) : reuse ? early.read().catch(() => deflateChunk(buf, level)) : deflateChunk(buf, level);
    data.catch(() => undefined); // awaited in order below; keeps an early rejection from being reported as unhandled
    pending.push(data);
    if (pending.length >= IN_FLIGHT) await put(await pending.shift()!);
  }
  while (pending.length) await put(await pending.shift()!);
  if (level > 0) await put(FINAL_BLOCK);
  if ((await src.stat()).size !== size) throw new Error('zip: a file changed size while it was being zipped');
  return { crc, compressed: written };
}

/** Writes one file's entry at offset; returns it and where the next one starts. */
async function addEntry(
  out: FileHandle,
  path: string,
  name: string,
  offset: number,
  level: number,
  opts: ZipOptions,
): Promise<[Entry, number]> {
  const force = opts.forceZip64 === true;
  const src = await open(path, 'r');
  try {
    const info = await src.stat();
    const entry: Entry = {
      name: Buffer.from(name, 'utf8'),
      offset,
      crc: 0,
      size: info.size,
      compressed: 0,
      method: level === 0 ? 0 : 8,
      zip64: force || info.size >= ZIP64_ENTRY,
      ...dosDateTime(info.mtime),
    };
    const headerLength = localHeader(entry, force).length;
    Object.assign(entry, await writeData(src, info.size, out, offset + headerLength, level, opts.ahead?.get(path), opts.signal));
    // The header goes in last, once CRC and sizes are known: no data descriptors for readers to trip on.
    await writeAll(out, localHeader(entry, force), offset);
    return [entry, offset + headerLength + entry.compressed];
  } finally {
    await src.close();
  }
}

/** Zips the files under dir into zipPath (ZIP64 when sizes, offsets or the entry count need it). */
export async function zipDirectory(dir: string, zipPath: string, opts: ZipOptions = {}): Promise<void> {
  const level = opts.level ?? DEFAULT_ZIP_LEVEL;
  if (!Number.isInteger(level) || level < 0 || level > 9) throw new Error(`zip: level must be 0-9, got ${level}`);
  const force = opts.forceZip64 === true;
  const entries: Entry[] = [];
  const out = await open(zipPath, 'w');
  try {
    let pos = 0;
    for (const rel of await listEntries(dir)) {
      const [entry, next] = await addEntry(out, join(dir, ...rel.split('/')), rel, pos, opts.stored?.(rel) ? 0 : level, opts);
      entries.push(entry);
      pos = next;
    }
    const central = Buffer.concat(entries.map((e) => centralHeader(e, force)));
    await writeAll(out, Buffer.concat([central, endRecords(entries.length, pos, central.length, force)]), pos);
  } finally {
    await out.close();
  }
}

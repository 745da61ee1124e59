import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CHUNK, chunkRange, deflateChunk, DeflatedAhead, DeflatedChunk, listEntries } from './zip';
import { writeAll } from '../write-all';

/** Polling is a readdir and a few stats; often enough that the deflater is never long behind GDAL. */
const POLL_MS = 10;
/** Two chunks at a time: one read while the other deflates. Measured against one: translate no slower, less left at the end. */
const IN_FLIGHT = 2;

/**
 * Deflates the files of a folder while GDAL is still writing them, so that little is left to compress when the
 * last layer closes. GDAL's translate keeps about one of two cores busy (it and the PostgreSQL backend take
 * turns over the cursor). Deflating on the other core slows the translate a little (the two still contend at times)
 * and takes most of the zip off the end of a Shapefile export; what is left is mostly reading the final files back to
 * check them.
 *
 * Only whole body chunks are taken (chunk 0, where headers are rewritten on close, never is). Nothing here is
 * trusted: zipDirectory reads every chunk of the final file and uses a deflated one only if its CRC still
 * matches, so a driver rewriting bytes it had already written costs time, not correctness (short of a 2^-32 CRC
 * collision on a rewritten body chunk; the drivers used rewrite headers, which sit in chunk 0). Deflated data is
 * spilled to disk beside the folder, not held in memory. Failures here only mean less was done ahead.
 */
export class ZipAhead {
  private readonly deflated: DeflatedAhead = new Map();
  private readonly nextChunk = new Map<string, number>();
  private readonly spills = new Map<string, Promise<{ handle: FileHandle; size: number }>>();
  private readonly timer: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly dir: string,
    private readonly spillDir: string,
    private readonly level: number,
  ) {
    this.timer = setInterval(() => {
      if (this.polling || this.stopped) return;
      this.polling = this.poll()
        .catch(() => undefined)
        .finally(() => (this.polling = undefined));
    }, POLL_MS);
    this.timer.unref();
  }

  /** How many chunks are deflated ahead so far (for tests and logs). */
  get chunksDeflated(): number {
    return [...this.deflated.values()].reduce((n, m) => n + m.size, 0);
  }

  /** Stops deflating ahead and returns what was done, for zipDirectory's `ahead` option. */
  async finish(): Promise<DeflatedAhead> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.polling;
    return this.deflated;
  }

  /** Closes the spill files; the caller removes the folder they are in. */
  async close(): Promise<void> {
    await this.finish();
    await Promise.all([...this.spills.values()].map((s) => s.then((x) => x.handle.close()).catch(() => undefined)));
    this.spills.clear();
  }

  private async poll(): Promise<void> {
    for (const rel of await listEntries(this.dir)) {
      const path = join(this.dir, ...rel.split('/'));
      try {
        await this.deflateGrowth(path);
      } catch {
        this.nextChunk.set(path, Infinity); // e.g. the file went away: leave it to zipDirectory
      }
      if (this.stopped) return;
    }
  }

  /** Deflates the whole chunks the file has gained since the last poll. */
  private async deflateGrowth(path: string): Promise<void> {
    let k = this.nextChunk.get(path) ?? 1;
    if (k === Infinity) return;
    const { size } = await stat(path);
    let source: FileHandle | undefined;
    const pending: Promise<void>[] = [];
    try {
      for (let r = chunkRange(k, size); r && r.length === CHUNK && !this.stopped; r = chunkRange(++k, size)) {
        source ??= await open(path, 'r');
        const buf = Buffer.allocUnsafe(CHUNK);
        if ((await source.read(buf, 0, CHUNK, r.start)).bytesRead !== CHUNK) break;
        const chunk = { ...r, crc: crc32(buf) };
        const index = k;
        const done = deflateChunk(buf, this.level).then((data) => this.keep(path, index, chunk, data));
        done.catch(() => undefined); // awaited below
        pending.push(done);
        if (pending.length >= IN_FLIGHT) await pending.shift();
        this.nextChunk.set(path, k + 1);
      }
      await Promise.all(pending);
    } finally {
      await Promise.allSettled(pending);
      await source?.close();
    }
  }

  private async keep(path: string, k: number, chunk: Omit<DeflatedChunk, 'read'>, data: Buffer): Promise<void> {
    let opening = this.spills.get(path);
    if (!opening) {
      const name = join(this.spillDir, `${this.spills.size}.deflate`);
      opening = mkdir(this.spillDir, { recursive: true }).then(async () => ({ handle: await open(name, 'w+'), size: 0 }));
      this.spills.set(path, opening);
    }
    const spill = await opening;
    const { handle } = spill;
    const length = data.length; // the closure below must not keep the buffer alive
    const at = spill.size; // reserved before the write: two chunks of a file can be kept at once
    spill.size += length;
    await writeAll(handle, data, at);
    const read = async () => {
      const out = Buffer.allocUnsafe(length);
      if ((await handle.read(out, 0, length, at)).bytesRead !== length) throw new Error('zip: a spilled chunk was cut short');
      return out;
    };
    if (!this.deflated.has(path)) this.deflated.set(path, new Map());
    this.deflated.get(path)!.set(k, { ...chunk, read });
  }
}

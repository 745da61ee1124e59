import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

const CHUNK = 1024 * 1024;
/** How long a read that found no new bytes waits before looking again (the writer is a COPY, so bytes come fast). */
const IDLE_MS = 10;

/** The stored bytes would not be the finished file: the writer changed bytes it had already written. */
export class GrowingFileMismatch extends Error {}

/** CRC-32 of a whole file, read in large chunks (zlib's native CRC: about 1 GB/s). */
export async function fileCrc32(path: string): Promise<number> {
  const handle = await fs.open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(4 * CHUNK);
    let crc = 0;
    for (let pos = 0; ;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (!bytesRead) return crc;
      crc = crc32(buf.subarray(0, bytesRead), crc);
      pos += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of a file that another part of this process is still appending to, as a stream: reads what is there,
 * waits for more, and ends once `finish` has said how large the file became. It never ends on its own, so a
 * writer that stops without calling `finish` leaves the stream (and whoever consumes it) waiting until destroyed.
 *
 * Safe only for files written front to back. Anything else is caught before the stream ends: `finish` takes the
 * finished file's CRC-32, and a stream whose bytes had another CRC fails instead of ending, so a consumer that
 * completes on end (a multipart upload) never completes with bytes the file does not hold.
 */
export class GrowingFileReader extends Readable {
  private handle?: FileHandle;
  private position = 0;
  private crc = 0;
  private final?: { size: number; crc: number };
  private waiting?: NodeJS.Timeout;

  constructor(private readonly path: string) {
    super({ highWaterMark: CHUNK });
  }

  /** The writer is done: the file has `size` bytes whose CRC-32 is `crc`. */
  finish(size: number, crc: number): void {
    this.final = { size, crc };
    if (this.waiting) {
      clearTimeout(this.waiting);
      this.waiting = undefined;
      this._read();
    }
  }

  override _read(): void {
    void this.next().catch((e) => this.destroy(e as Error));
  }

  private async next(): Promise<void> {
    if (!this.handle) {
      // The writer may not have created the file yet.
      const opened = await fs.open(this.path, 'r').catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT' && !this.final) return undefined;
        throw e;
      });
      if (!opened) return this.wait();
      this.handle = opened;
    }
    const want = this.final ? Math.min(CHUNK, this.final.size - this.position) : CHUNK;
    if (want <= 0) return this.end();
    const buf = Buffer.allocUnsafe(want);
    const { bytesRead } = await this.handle.read(buf, 0, want, this.position);
    if (!bytesRead) {
      // `finish` may have come while this read was under way.
      if (!this.final) return this.wait();
      if (this.position === this.final.size) return this.end();
      throw new GrowingFileMismatch(`the file ended at ${this.position} of ${this.final.size} bytes`);
    }
    const data = buf.subarray(0, bytesRead);
    this.position += bytesRead;
    this.crc = crc32(data, this.crc);
    this.push(data);
  }

  private wait(): void {
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      this._read();
    }, IDLE_MS);
  }

  private end(): void {
    if (this.crc !== this.final!.crc) throw new GrowingFileMismatch('the file changed after its bytes were read');
    this.push(null);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.waiting);
    const handle = this.handle;
    this.handle = undefined;
    if (!handle) return done(error);
    handle.close().then(
      () => done(error),
      () => done(error),
    );
  }
}

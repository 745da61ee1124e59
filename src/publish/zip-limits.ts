/**
 * Bounds on what a zipped upload may unpack to. GDAL reads shapefiles straight out of the zip (/vsizip/) and takes
 * each member's size from the central directory, so the archive is checked twice before GDAL sees it:
 *  - checkZipDirectory: the central directory alone (no inflating; milliseconds), at request time and at job start;
 *  - checkZipContents: every member inflated and counted for real, so a header that understates a member (a zip
 *    bomb's trick) or a total beyond the limit stops the job before a single feature is loaded.
 * yauzl (a well-kept, widely used reader) does the parsing: it refuses unsafe member names, checks that each member
 * inflates to exactly the size its header declares (validateEntrySizes), and understands zip64; a hand-written
 * reader would have to get all of that right again.
 */
import { PassThrough, Readable } from 'node:stream';
import * as yauzl from 'yauzl';
import { PublishError } from './errors';

export interface ZipLimits {
  maxUnpackedBytes: number;
  /** Checked against the record counts the shapefile indexes (.shx) declare. */
  maxFeatures?: number;
}

export interface ZipDirectory {
  members: number;
  unpackedBytes: number;
  /** Features the .shx files declare ((size - 100) / 8 records each). */
  shapefileFeatures: number;
}

const MAX_MEMBERS = 10_000;
const mb = (n: number) => `${Math.round(n / 1024 / 1024).toLocaleString('en-US')} MB`;

export const tooLarge = (bytes: number, max: number) =>
  new PublishError(`The zip file unpacks to more than ${mb(max)} (at least ${mb(bytes)}); the limit is ${mb(max)}.`);
export const tooManyFeatures = (n: number, max: number) =>
  new PublishError(
    `The file holds more than ${max.toLocaleString('en-US')} features (at least ${n.toLocaleString('en-US')}); at most ${max.toLocaleString('en-US')} can be published at once.`,
  );

/**
 * A zip read by ranges from storage (the API checks an upload's central directory without holding the file). The
 * last MiB, where the end record and almost always the whole central directory are, is fetched once; other ranges
 * are fetched as yauzl asks for them.
 */
export interface ZipSource {
  size: number;
  read(start: number, endInclusive: number): Promise<Readable>;
}

const TAIL_BYTES = 1024 * 1024;

class StoredZipReader extends yauzl.RandomAccessReader {
  private tail?: Promise<Buffer>;
  private readonly tailStart: number;

  constructor(private readonly source: ZipSource) {
    super();
    this.tailStart = Math.max(0, source.size - TAIL_BYTES);
  }

  _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    const fetch = async (): Promise<void> => {
      if (end <= start) return void out.end();
      if (start >= this.tailStart) {
        this.tail ??= this.source.read(this.tailStart, this.source.size - 1).then(async (s) => Buffer.concat(await s.toArray()));
        return void out.end((await this.tail).subarray(start - this.tailStart, end - this.tailStart));
      }
      const s = await this.source.read(start, end - 1);
      s.on('error', (e: Error) => out.destroy(e));
      s.pipe(out);
    };
    fetch().catch((e: Error) => out.destroy(e));
    return out;
  }
}

function openZip(source: string | ZipSource): Promise<yauzl.ZipFile> {
  const options = { lazyEntries: true, autoClose: true, validateEntrySizes: true };
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, zip?: yauzl.ZipFile) => (err || !zip ? reject(err) : resolve(zip));
    if (typeof source === 'string') yauzl.open(source, options, done);
    else yauzl.fromRandomAccessReader(new StoredZipReader(source), source.size, options, done);
  });
}

/** Visits every member in central-directory order; `visit` may return a promise (the walk waits for it). */
async function walk(path: string | ZipSource, visit: (entry: yauzl.Entry, zip: yauzl.ZipFile) => void | Promise<void>): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(path);
  } catch {
    throw new PublishError('The file is not a valid zip archive.');
  }
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown) => {
      zip.close();
      reject(e instanceof PublishError ? e : new PublishError(`The zip file is damaged or not supported: ${(e as Error)?.message ?? e}`));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      Promise.resolve()
        .then(() => visit(entry, zip))
        .then(() => zip.readEntry(), fail);
    });
    zip.readEntry();
  });
}

const isDirectory = (e: yauzl.Entry) => e.fileName.endsWith('/');

/** Sizes as the central directory declares them; throws PublishError past a limit. */
export async function checkZipDirectory(path: string | ZipSource, limits: ZipLimits): Promise<ZipDirectory> {
  const out: ZipDirectory = { members: 0, unpackedBytes: 0, shapefileFeatures: 0 };
  await walk(path, (e) => {
    if (++out.members > MAX_MEMBERS) throw new PublishError(`The zip file holds more than ${MAX_MEMBERS.toLocaleString('en-US')} files.`);
    if (isDirectory(e)) return;
    out.unpackedBytes += e.uncompressedSize;
    if (out.unpackedBytes > limits.maxUnpackedBytes) throw tooLarge(out.unpackedBytes, limits.maxUnpackedBytes);
    if (/\.shx$/i.test(e.fileName)) {
      out.shapefileFeatures += Math.max(0, Math.floor((e.uncompressedSize - 100) / 8));
      if (limits.maxFeatures !== undefined && out.shapefileFeatures > limits.maxFeatures)
        throw tooManyFeatures(out.shapefileFeatures, limits.maxFeatures);
    }
  });
  return out;
}

/**
 * Inflates every member and counts the bytes that really come out, stopping at the limit. A member that inflates
 * to more (or less) than its header says is refused: GDAL would trust that header.
 */
export async function checkZipContents(path: string, limits: ZipLimits, signal?: AbortSignal): Promise<number> {
  let total = 0;
  await walk(path, async (entry, zip) => {
    signal?.throwIfAborted();
    if (isDirectory(entry)) return;
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))),
    );
    await new Promise<void>((resolve, reject) => {
      const readable = stream as NodeJS.ReadableStream & { destroy(e?: Error): void };
      readable.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > limits.maxUnpackedBytes) readable.destroy(tooLarge(total, limits.maxUnpackedBytes));
      });
      readable.on('error', (e: Error) =>
        reject(
          e instanceof PublishError
            ? e
            : new PublishError(
                `The zip member '${entry.fileName.slice(0, 200)}' could not be read (${e.message}); the archive is damaged or its sizes are wrong.`,
              ),
        ),
      );
      readable.on('end', () => resolve());
    });
  });
  return total;
}

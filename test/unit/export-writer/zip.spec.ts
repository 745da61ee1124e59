/**
 * The zip writer read back by two independent readers: Python's zipfile (checks every CRC, understands ZIP64)
 * and GDAL's /vsizip/, which is how GIS clients open the exports.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as gdal from 'gdal-async';
import { CHUNK, HEAD, zipDirectory } from '../../../src/export/writer/zip/zip';
import { ZipAhead } from '../../../src/export/writer/zip/zip-ahead';

const MiB = 1 << 20;
const READ_ZIP = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    entries = [{"name": i.filename, "method": i.compress_type, "size": i.file_size, "compressed": i.compress_size,
                "sha256": hashlib.sha256(z.read(i)).hexdigest(), "mode": i.external_attr >> 16} for i in z.infolist()]
print(json.dumps({"bad": bad, "entries": entries}))
`;

interface Read {
  bad: string | null;
  entries: { name: string; method: number; size: number; compressed: number; sha256: string; mode: number }[];
}
const readZip = (path: string): Read => JSON.parse(execFileSync('python3', ['-c', READ_ZIP, path], { encoding: 'utf8' }));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Shapefile-like content: runs of doubles (poorly compressible) and of text (very compressible). */
function mixed(size: number): Buffer {
  const b = randomBytes(size);
  for (let o = 1024; o + 64 < size; o += 4096) b.write('Straße name 0000000000 ', o, 'utf8');
  return b;
}

describe('zipDirectory', () => {
  let root: string;
  let src: string;
  const files: Record<string, Buffer> = {};

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'zip-spec-'));
    src = join(root, 'src');
    mkdirSync(join(src, 'Layers.gdb'), { recursive: true });
    // Sizes around the 1 MiB chunk boundary, an empty file, a multi-chunk file, a nested folder, a UTF-8 name.
    const put = (name: string, data: Buffer) => {
      files[name] = data;
      writeFileSync(join(src, ...name.split('/')), data);
    };
    put('empty.txt', Buffer.alloc(0));
    put('one.txt', Buffer.from('x'));
    put('below.dbf', mixed(MiB - 1));
    put('exact.shx', mixed(MiB));
    put('above.shp', mixed(MiB + 1));
    put('Straßen.shp', mixed(Math.floor(3.5 * MiB)));
    put('zeros.bin', Buffer.alloc(5 * MiB));
    put('Layers.gdb/a00000001.gdbtable', mixed(200_000));
    writeFileSync(join(src, 'points.csv'), 'id,name\n1,a\n2,b\n');
    files['points.csv'] = readFileSync(join(src, 'points.csv'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const expected = () =>
    Object.keys(files)
      .sort()
      .map((name) => ({ name, size: files[name].length, sha256: sha256(files[name]) }));

  it.each([
    ['stored', 0, false],
    ['deflated, level 1', 1, false],
    ['deflated, level 6', 6, false],
    ['deflated with ZIP64 records', 1, true],
    ['stored with ZIP64 records', 0, true],
  ])('%s: every entry reads back byte for byte with its CRC', async (_label, level, forceZip64) => {
    const zip = join(root, `out-${level}-${forceZip64}.zip`);
    await zipDirectory(src, zip, { level, forceZip64 });
    const read = readZip(zip);
    expect(read.bad).toBeNull();
    expect(read.entries.map(({ name, size, sha256 }) => ({ name, size, sha256 }))).toEqual(expected());
    for (const e of read.entries) {
      expect(e.method).toBe(level === 0 ? 0 : 8);
      expect(e.mode).toBe(0o100644);
      if (level === 0) expect(e.compressed).toBe(e.size);
    }
    // Compressible data shrinks; the chunked stream loses almost nothing against one deflate of the whole file.
    const zeros = read.entries.find((e) => e.name === 'zeros.bin')!;
    if (level > 0) expect(zeros.compressed).toBeLessThan(zeros.size / 100);
  });

  it('stores the entries `stored` names as they are and deflates the rest', async () => {
    const zip = join(root, 'out-stored.zip');
    await zipDirectory(src, zip, { level: 1, stored: (name) => name.endsWith('.shp') });
    const read = readZip(zip);
    expect(read.bad).toBeNull();
    expect(read.entries.map(({ name, size, sha256 }) => ({ name, size, sha256 }))).toEqual(expected());
    for (const e of read.entries) expect([e.name, e.method]).toEqual([e.name, e.name.endsWith('.shp') ? 0 : 8]);
    expect(read.entries.find((e) => e.name === 'above.shp')!.compressed).toBe(MiB + 1);
  });

  it('GDAL opens a layer inside the zip, including through ZIP64 records', async () => {
    for (const forceZip64 of [false, true]) {
      const zip = join(root, `gdal-${forceZip64}.zip`);
      await zipDirectory(src, zip, { level: 1, forceZip64 });
      const ds = gdal.open(`/vsizip/${zip}/points.csv`);
      try {
        expect(ds.layers.get(0).features.count()).toBe(2);
      } finally {
        ds.close();
      }
    }
  });

  it('clamps modification times DOS dates cannot hold (before 1980, after 2107)', async () => {
    const dir = join(root, 'times');
    mkdirSync(dir);
    writeFileSync(join(dir, 'old.txt'), 'a');
    writeFileSync(join(dir, 'future.txt'), 'b');
    utimesSync(join(dir, 'old.txt'), new Date('1970-01-02T00:00:00Z'), new Date('1970-01-02T00:00:00Z'));
    utimesSync(join(dir, 'future.txt'), new Date('2200-06-01T00:00:00Z'), new Date('2200-06-01T00:00:00Z'));
    const zip = join(root, 'times.zip');
    await zipDirectory(dir, zip);
    const dates = execFileSync(
      'python3',
      ['-c', 'import sys, zipfile; print([list(i.date_time) for i in zipfile.ZipFile(sys.argv[1]).infolist()])', zip],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(dates)).toEqual([
      [2107, 12, 31, 23, 59, 58],
      [1980, 1, 1, 0, 0, 0],
    ]);
  });

  it('an empty folder gives an empty but valid zip', async () => {
    const empty = join(root, 'nothing');
    mkdirSync(empty);
    const zip = join(root, 'empty.zip');
    await zipDirectory(empty, zip);
    expect(statSync(zip).size).toBe(22);
    expect(readZip(zip)).toEqual({ bad: null, entries: [] });
  });

  it('stops with the abort reason when its signal is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    controller.abort(reason);
    await expect(zipDirectory(src, join(root, 'aborted.zip'), { signal: controller.signal })).rejects.toBe(reason);
  });

  it('refuses a level zlib does not have', async () => {
    await expect(zipDirectory(src, join(root, 'bad.zip'), { level: 10 })).rejects.toThrow(/level must be 0-9/);
  });
});

describe('ZipAhead', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'zip-ahead-spec-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(cond()).toBe(true);
  };

  /**
   * A file grows while ZipAhead deflates it, then (as a driver closing a file does) its head and one body chunk
   * already deflated are rewritten: the zip must hold the final bytes, never the stale chunk.
   */
  it('deflates a growing file ahead and never ships a chunk that changed afterwards', async () => {
    const dir = join(root, 'out');
    mkdirSync(dir);
    const path = join(dir, 'layer.shp');
    const first = mixed(HEAD + 3 * CHUNK);
    writeFileSync(path, first);
    const ahead = new ZipAhead(dir, join(root, 'spill'), 1);
    try {
      await until(() => ahead.chunksDeflated >= 3);
      const more = mixed(2 * CHUNK + 777);
      appendFileSync(path, more);
      await until(() => ahead.chunksDeflated >= 5);
      const final = Buffer.concat([first, more]);
      final.write('new header', 10, 'latin1');
      final.write('rewritten body', HEAD + CHUNK + 5, 'latin1');
      writeFileSync(path, final);
      const zip = join(root, 'out.zip');
      await zipDirectory(dir, zip, { level: 1, ahead: await ahead.finish() });
      expect(readZip(zip)).toEqual({
        bad: null,
        entries: [expect.objectContaining({ name: 'layer.shp', size: final.length, sha256: sha256(final), method: 8 })],
      });
    } finally {
      await ahead.close();
    }
  });

  it('uses the chunks it deflated: the zip matches one written without it', async () => {
    const dir = join(root, 'out');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.dbf'), mixed(HEAD + 4 * CHUNK + 1));
    const ahead = new ZipAhead(dir, join(root, 'spill'), 1);
    try {
      await until(() => ahead.chunksDeflated === 4);
      const spilled = join(root, 'with.zip');
      await zipDirectory(dir, spilled, { level: 1, ahead: await ahead.finish() });
      await zipDirectory(dir, join(root, 'without.zip'), { level: 1 });
      expect(readFileSync(spilled).equals(readFileSync(join(root, 'without.zip')))).toBe(true);
    } finally {
      await ahead.close();
    }
  });

  it('deflates again a chunk whose spill cannot be read back', async () => {
    const dir = join(root, 'out');
    mkdirSync(dir);
    const data = mixed(HEAD + 3 * CHUNK + 10);
    writeFileSync(join(dir, 'b.dbf'), data);
    const ahead = new ZipAhead(dir, join(root, 'spill'), 1);
    await until(() => ahead.chunksDeflated === 3);
    const done = await ahead.finish();
    await ahead.close(); // the spill handles are gone: every read() of a deflated chunk now fails
    const zip = join(root, 'fallback.zip');
    await zipDirectory(dir, zip, { level: 1, ahead: done });
    expect(readZip(zip)).toEqual({ bad: null, entries: [expect.objectContaining({ name: 'b.dbf', sha256: sha256(data) })] });
  });
});

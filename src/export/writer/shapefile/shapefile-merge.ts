/**
 * Joins shapefiles GDAL wrote for consecutive OID ranges of one layer into the shapefile GDAL would have written for
 * the whole layer, byte for byte (shapefile-parts.ts has them written in parallel). The formats are fixed-layout
 * (the ESRI Shapefile Technical Description and dBase III), so joining is copying: the .dbf records as they are, the
 * .shp records with their record numbers counted on, the .shx entries with their offsets moved by the bytes before,
 * and the headers written last with the totals and the whole layer's bounding box.
 *
 * Not a general shapefile library: it takes only what GDAL 3.6 writes for the service's layers (2D types, one field
 * layout for all parts) and throws on anything else, which the caller treats as a failed export, not as data.
 */
import { copyFile, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { writeAll } from '../write-all';

const SHP_HEADER = 100;
const DBF_EOF = 0x1a;
/** Bytes read at a time; a record's header and the bytes giving its extent (52) always fit. */
const CHUNK = 1 << 20;
/** The record prefix the extent is read from: record header, shape type, box, part and point counts. */
const PREFIX = 52;
/** Null, Point, PolyLine, Polygon, MultiPoint: the 2D types GDAL writes for POINT .. MULTIPOLYGON layers. */
const SHAPE_TYPES = new Set([0, 1, 3, 5, 8]);
/** The least bytes of a record of each type (header and the fields read here): a shorter one is refused. */
const MIN_RECORD: Record<number, number> = { 0: 12, 1: 28, 3: PREFIX, 5: PREFIX, 8: 48 };

export class ShapefileMergeError extends Error {}

interface Bounds {
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
}

/** Appends parts in order to `<dir>/<name>.shp|.shx|.dbf`; finish() writes the headers. */
export class ShapefileMerger {
  private shp?: FileHandle;
  private shx?: FileHandle;
  private dbf?: FileHandle;
  private shpSize = SHP_HEADER;
  private records = 0;
  private shpHeader?: Buffer;
  private dbfHeader?: Buffer;
  private recordLength = 0;
  /** The file-wide extent as shapelib keeps it: set by the first record (zeros when it has no vertices), then grown. */
  private bounds?: Bounds;
  private readonly buf = Buffer.allocUnsafe(CHUNK);

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {}

  /** Rows joined so far. */
  get rows(): number {
    return this.records;
  }

  /** Bytes of the joined .shp and .dbf so far (for the 2 GB check before a part is added). */
  get sizes(): { shp: number; dbf: number } {
    return { shp: this.shp ? this.shpSize : 0, dbf: (this.dbfHeader?.length ?? 0) + this.records * this.recordLength + 1 };
  }

  /** What `partDir`'s shapefile would add to sizes: its records, not its headers or the .dbf's end-of-file byte. */
  static async partSizes(partDir: string, name: string): Promise<{ shp: number; dbf: number }> {
    const shp = await stat(join(partDir, `${name}.shp`)).then(
      (s) => Math.max(0, s.size - SHP_HEADER),
      () => 0,
    );
    const h = await open(join(partDir, `${name}.dbf`), 'r');
    try {
      const head = Buffer.alloc(12);
      await h.read(head, 0, 12, 0);
      return { shp, dbf: Math.max(0, (await h.stat()).size - head.readUInt16LE(8) - 1) };
    } finally {
      await h.close();
    }
  }

  /** Appends the shapefile `<partDir>/<name>.*` (the next OID range). */
  async append(partDir: string): Promise<void> {
    const first = !this.dbfHeader;
    const dbf = await open(join(partDir, `${this.name}.dbf`), 'r');
    try {
      const n = await this.appendDbf(dbf);
      const hasShp = await stat(join(partDir, `${this.name}.shp`)).then(
        () => true,
        () => false,
      );
      if (first && hasShp) {
        this.shp = await open(join(this.dir, `${this.name}.shp`), 'w');
        this.shx = await open(join(this.dir, `${this.name}.shx`), 'w');
        await writeAll(this.shp, Buffer.alloc(SHP_HEADER), 0);
        await writeAll(this.shx, Buffer.alloc(SHP_HEADER), 0);
      }
      if (hasShp !== !!this.shp) throw new ShapefileMergeError(`part ${partDir}: .shp present in some parts only`);
      if (this.shp) await this.appendShp(partDir, n);
      this.records += n;
      if (first) await this.copyExtras(partDir);
    } finally {
      await dbf.close();
    }
  }

  /** Writes the headers and closes the files; returns the rows. */
  async finish(): Promise<number> {
    if (!this.dbf || !this.dbfHeader) throw new ShapefileMergeError('no part was appended');
    const head = Buffer.from(this.dbfHeader);
    head.writeUInt32LE(this.records, 4);
    await writeAll(this.dbf, head, 0);
    await writeAll(this.dbf, Buffer.from([DBF_EOF]), this.dbfHeader.length + this.records * this.recordLength);
    if (this.shp && this.shx && this.shpHeader) {
      const b = this.bounds ?? { xmin: 0, ymin: 0, xmax: 0, ymax: 0 };
      const head = Buffer.from(this.shpHeader);
      [b.xmin, b.ymin, b.xmax, b.ymax].forEach((v, i) => head.writeDoubleLE(v, 36 + 8 * i));
      head.writeInt32BE(this.shpSize / 2, 24);
      await writeAll(this.shp, head, 0);
      head.writeInt32BE((SHP_HEADER + 8 * this.records) / 2, 24);
      await writeAll(this.shx, head, 0);
    }
    await this.close();
    return this.records;
  }

  async close(): Promise<void> {
    const handles = [this.shp, this.shx, this.dbf];
    this.shp = this.shx = this.dbf = undefined;
    await Promise.all(handles.map((h) => h?.close().catch(() => undefined)));
  }

  /** The part's records after the joined ones; the first part's header (fields, date, language) is the file's. */
  private async appendDbf(part: FileHandle): Promise<number> {
    const top = Buffer.alloc(32);
    await part.read(top, 0, 32, 0);
    const headerLength = top.readUInt16LE(8);
    const recordLength = top.readUInt16LE(10);
    const n = top.readUInt32LE(4);
    const header = Buffer.alloc(headerLength);
    if ((await part.read(header, 0, headerLength, 0)).bytesRead < headerLength) throw new ShapefileMergeError('short .dbf header');
    if (!this.dbfHeader) {
      this.dbfHeader = header;
      this.recordLength = recordLength;
      this.dbf = await open(join(this.dir, `${this.name}.dbf`), 'w');
      await writeAll(this.dbf, header, 0);
    } else if (!header.subarray(8).equals(this.dbfHeader.subarray(8))) {
      // Same field layout in every part: the same SELECT's columns, so only a change of GDAL could break it.
      throw new ShapefileMergeError('the parts of a shapefile have different .dbf fields');
    }
    const bytes = n * recordLength;
    if ((await part.stat()).size < headerLength + bytes) throw new ShapefileMergeError('short .dbf');
    const at = this.dbfHeader.length + this.records * this.recordLength;
    await this.copyRange(part, headerLength, bytes, this.dbf!, at);
    return n;
  }

  private async copyRange(src: FileHandle, from: number, bytes: number, dst: FileHandle, to: number): Promise<void> {
    for (let done = 0; done < bytes;) {
      const { bytesRead } = await src.read(this.buf, 0, Math.min(CHUNK, bytes - done), from + done);
      if (!bytesRead) throw new ShapefileMergeError('part ended early');
      await writeAll(dst, this.buf.subarray(0, bytesRead), to + done);
      done += bytesRead;
    }
  }

  /** The part's .shp records (numbered on, extent taken) and its .shx entries (offsets moved). */
  private async appendShp(partDir: string, n: number): Promise<void> {
    const [shp, shx] = await Promise.all([open(join(partDir, `${this.name}.shp`), 'r'), open(join(partDir, `${this.name}.shx`), 'r')]);
    try {
      const header = Buffer.alloc(SHP_HEADER);
      await shp.read(header, 0, SHP_HEADER, 0);
      const type = header.readInt32LE(32);
      if (!SHAPE_TYPES.has(type)) throw new ShapefileMergeError(`shape type ${type} is not joined`);
      if (!this.shpHeader) this.shpHeader = header;
      else if (type !== this.shpHeader.readInt32LE(32)) throw new ShapefileMergeError('the parts have different shape types');
      const end = header.readInt32BE(24) * 2;
      const shift = (this.shpSize - SHP_HEADER) / 2;
      const written = await this.copyRecords(shp, end, n);
      await this.copyIndex(shx, n, shift);
      this.shpSize += written;
    } finally {
      await Promise.all([shp.close(), shx.close()]);
    }
  }

  private async copyRecords(shp: FileHandle, end: number, n: number): Promise<number> {
    let pos = SHP_HEADER;
    let next = SHP_HEADER;
    let seen = 0;
    while (pos < end) {
      const { bytesRead } = await shp.read(this.buf, 0, Math.min(CHUNK, end - pos), pos);
      if (!bytesRead) throw new ShapefileMergeError('short .shp');
      let upto = pos + bytesRead;
      while (next < upto) {
        const at = next - pos;
        const length = next + 8 <= upto ? 8 + this.buf.readInt32BE(at + 4) * 2 : PREFIX;
        if (next + Math.min(length, PREFIX) > upto) {
          // The record's start runs past this read: it begins the next one.
          if (next === pos) throw new ShapefileMergeError('truncated .shp record');
          upto = next;
          break;
        }
        if (this.buf.readInt32BE(at) !== seen + 1) throw new ShapefileMergeError('unexpected .shp record number');
        const type = length >= 12 ? this.buf.readInt32LE(at + 8) : -1;
        if (type !== 0 && type !== this.shpHeader!.readInt32LE(32)) throw new ShapefileMergeError(`a record of shape type ${type}`);
        if (length < MIN_RECORD[type]) throw new ShapefileMergeError(`a record of shape type ${type} and ${length} bytes`);
        this.buf.writeInt32BE(this.records + seen + 1, at);
        this.extend(at);
        seen++;
        next += length;
      }
      await writeAll(this.shp!, this.buf.subarray(0, upto - pos), this.shpSize + pos - SHP_HEADER);
      pos = upto;
    }
    if (seen !== n || next !== end) throw new ShapefileMergeError(`.shp holds ${seen} records, the .dbf ${n}`);
    return end - SHP_HEADER;
  }

  /** Grows the extent by the record at `at` in the buffer, as shapelib does while writing. */
  private extend(at: number): void {
    const type = this.buf.readInt32LE(at + 8);
    let box: Bounds | null = null;
    if (type === 1) {
      const x = this.buf.readDoubleLE(at + 12);
      const y = this.buf.readDoubleLE(at + 20);
      box = { xmin: x, ymin: y, xmax: x, ymax: y };
    } else if (type !== 0) {
      const points = this.buf.readInt32LE(at + (type === 8 ? 44 : 48));
      if (points > 0) {
        const v = (i: number) => this.buf.readDoubleLE(at + 12 + 8 * i);
        box = { xmin: v(0), ymin: v(1), xmax: v(2), ymax: v(3) };
      }
    }
    if (!this.bounds) {
      this.bounds = box ?? { xmin: 0, ymin: 0, xmax: 0, ymax: 0 };
      return;
    }
    if (!box) return;
    // Compared as shapelib does (a < b), not with Math.min/max: -0 against 0, and NaN, then come out the same.
    const b = this.bounds;
    if (box.xmin < b.xmin) b.xmin = box.xmin;
    if (box.ymin < b.ymin) b.ymin = box.ymin;
    if (box.xmax > b.xmax) b.xmax = box.xmax;
    if (box.ymax > b.ymax) b.ymax = box.ymax;
  }

  private async copyIndex(shx: FileHandle, n: number, shift: number): Promise<void> {
    const entries = Math.floor(CHUNK / 8);
    for (let done = 0; done < n;) {
      const want = Math.min(entries, n - done);
      const { bytesRead } = await shx.read(this.buf, 0, want * 8, SHP_HEADER + done * 8);
      if (bytesRead < want * 8) throw new ShapefileMergeError('short .shx');
      for (let i = 0; i < want; i++) this.buf.writeInt32BE(this.buf.readInt32BE(i * 8) + shift, i * 8);
      await writeAll(this.shx!, this.buf.subarray(0, want * 8), SHP_HEADER + (this.records + done) * 8);
      done += want;
    }
  }

  /** The first part's other files (.cpg, .prj): the same for every part. */
  private async copyExtras(partDir: string): Promise<void> {
    for (const f of await readdir(partDir)) {
      const ext = extname(f).toLowerCase();
      if (basename(f, extname(f)) !== this.name || ['.shp', '.shx', '.dbf'].includes(ext)) continue;
      await copyFile(join(partDir, f), join(this.dir, f));
    }
  }
}

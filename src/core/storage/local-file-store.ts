import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ByteRange, FileStore, PartsUpload, StoredItem, StoredObject, StoredPart } from './file-store';

/** Item files under DATA_DIR/items/<itemId>/: the embedded default, for one host (or a disk every process mounts). */
export class LocalFileStore extends FileStore {
  readonly kind = 'local';
  private readonly root: string;

  constructor(dataDir: string) {
    super();
    this.root = path.resolve(dataDir);
  }

  /** A rename: the temp file and the item folder are on the same disk, so the file appears whole or not at all. */
  async adoptAs(key: string, localPath: string): Promise<string> {
    await fs.mkdir(path.dirname(this.resolve(key)), { recursive: true });
    await fs.rename(localPath, this.resolve(key));
    return key;
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.resolve(key), { force: true });
  }

  async startParts(): Promise<null> {
    return null;
  }

  /**
   * Parts wait in the item's folder under `.parts/` (no stored file name can start with a dot: safeName), each
   * upload of a part under a name of its own, which is its etag: a part replaced while a commit reads the parts
   * leaves the file the commit recorded in place.
   */
  async putPart(u: PartsUpload, partNum: number, localPath: string): Promise<string> {
    const dir = this.partsDir(u.itemId);
    const name = `${partNum}-${randomUUID()}`;
    await fs.mkdir(dir, { recursive: true });
    await fs.rename(localPath, path.join(dir, name));
    return name;
  }

  async removePart(u: PartsUpload, etag: string): Promise<void> {
    if (/^\d+-[0-9a-f-]{36}$/.test(etag)) await fs.rm(path.join(this.partsDir(u.itemId), etag), { force: true });
  }

  /** Streams the parts one after another into a file beside them, then renames it into place. */
  async assembleParts(u: PartsUpload, parts: StoredPart[]): Promise<string> {
    const dir = this.partsDir(u.itemId);
    const key = FileStore.itemKey(u.itemId, u.fileName);
    // Joined by an earlier attempt that died before recording it: the parts are gone, the file is whole.
    const total = parts.reduce((n, p) => n + p.size, 0);
    if (!(await fs.stat(dir).catch(() => undefined)) && (await this.stat(key))?.size === total) return key;
    const joined = path.join(dir, `joined-${randomUUID()}`);
    const out = createWriteStream(joined, { flags: 'wx' });
    try {
      for (const p of parts) {
        if (!/^\d+-[0-9a-f-]{36}$/.test(p.etag)) throw new Error(`not a part of this store: ${p.etag.slice(0, 60)}`);
        await pipeline(createReadStream(path.join(dir, p.etag)), out, { end: false });
      }
      out.end();
      await finished(out);
      await fs.rename(joined, this.resolve(key));
    } catch (e) {
      out.destroy();
      await fs.rm(joined, { force: true });
      throw e;
    }
    await fs.rm(dir, { recursive: true, force: true });
    return key;
  }

  async dropParts(u: PartsUpload): Promise<void> {
    await fs.rm(this.partsDir(u.itemId), { recursive: true, force: true });
  }

  private partsDir(itemId: string): string {
    if (!FileStore.isItemId(itemId)) throw new Error(`not an item id: ${itemId.slice(0, 40)}`);
    return path.join(this.root, 'items', itemId, '.parts');
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const s = await fs.stat(this.resolve(key));
      return { size: s.size, etag: `"${s.size.toString(16)}-${s.mtimeMs.toString(16)}"`, lastModified: s.mtime };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    return createReadStream(this.resolve(key), range ? { start: range.start, end: range.end } : {});
  }

  async localFile(key: string): Promise<string> {
    return this.resolve(key);
  }

  localPath(key: string): string {
    return this.resolve(key);
  }

  async downloadUrl(): Promise<undefined> {
    return undefined;
  }

  async removeItem(itemId: string): Promise<void> {
    if (!FileStore.isItemId(itemId)) return;
    await fs.rm(path.join(this.root, 'items', itemId), { recursive: true, force: true });
  }

  async *listItems(): AsyncIterable<StoredItem[]> {
    const items = path.join(this.root, 'items');
    const page: StoredItem[] = [];
    for (const name of await fs.readdir(items).catch(() => [] as string[])) {
      if (!FileStore.isItemId(name)) continue;
      const dir = path.join(items, name);
      let newest = (await fs.stat(dir).catch(() => undefined))?.mtime;
      if (!newest) continue;
      for (const f of await fs.readdir(dir).catch(() => [] as string[])) {
        const m = (await fs.stat(path.join(dir, f)).catch(() => undefined))?.mtime;
        if (m && m > newest) newest = m;
      }
      page.push({ itemId: name, newest });
      if (page.length === 1000) yield page.splice(0);
    }
    if (page.length) yield page;
  }

  async sweepStaging(): Promise<number> {
    return 0;
  }

  private resolve(key: string): string {
    const abs = path.resolve(this.root, key);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`stored path escapes DATA_DIR: ${key}`);
    return abs;
  }
}

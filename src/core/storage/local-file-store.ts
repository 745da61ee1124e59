import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { ByteRange, FileStore, StoredItem, StoredObject } from './file-store';

/** Item files under DATA_DIR/items/<itemId>/: the embedded default, for one host (or a disk every process mounts). */
export class LocalFileStore extends FileStore {
  readonly kind = 'local';
  private readonly root: string;

  constructor(dataDir: string) {
    super();
    this.root = path.resolve(dataDir);
  }

  /** A rename: the temp file and the item folder are on the same disk, so the file appears whole or not at all. */
  async store(key: string, localPath: string): Promise<void> {
    await fs.mkdir(path.dirname(this.resolve(key)), { recursive: true });
    await fs.rename(localPath, this.resolve(key));
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.resolve(key), { force: true });
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

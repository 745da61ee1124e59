import { Inject, Injectable } from '@nestjs/common';
import { createReadStream, promises as fs, ReadStream } from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';

/** Item files under DATA_DIR/items/<itemId>/; the path stored in the database is relative to DATA_DIR. */
@Injectable()
export class FileStore {
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = path.resolve(config.dataDir);
  }

  /** Only the base name is kept, and anything that could escape the folder or confuse a shell is replaced. */
  static safeName(name: string): string {
    const base = path
      .basename(name.replace(/\\/g, '/'))
      .replace(/[^\w.\- ()]/g, '_')
      .replace(/^\.+/, '_');
    return base.slice(-200) || 'file';
  }

  /** Moves an uploaded temp file into the item's folder; returns the stored relative path. */
  async adopt(itemId: string, tempPath: string, fileName: string): Promise<string> {
    if (!/^[0-9a-f]{32}$/.test(itemId)) throw new Error(`not an item id: ${itemId.slice(0, 40)}`);
    const rel = path.join('items', itemId, FileStore.safeName(fileName));
    await fs.mkdir(path.join(this.root, 'items', itemId), { recursive: true });
    await fs.rename(tempPath, path.join(this.root, rel));
    return rel;
  }

  open(rel: string): ReadStream {
    return createReadStream(this.resolve(rel));
  }

  async size(rel: string): Promise<number> {
    return (await fs.stat(this.resolve(rel))).size;
  }

  async removeItemFolder(itemId: string): Promise<void> {
    // Item ids are 32 hex characters; anything else never names a folder of ours (and could name '..').
    if (!/^[0-9a-f]{32}$/.test(itemId)) return;
    await fs.rm(path.join(this.root, 'items', itemId), { recursive: true, force: true });
  }

  /** Absolute path of a stored file, for readers such as GDAL that open files by name. */
  absolute(rel: string): string {
    return this.resolve(rel);
  }

  private resolve(rel: string): string {
    const abs = path.resolve(this.root, rel);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`stored path escapes DATA_DIR: ${rel}`);
    return abs;
  }
}

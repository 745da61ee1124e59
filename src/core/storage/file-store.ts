import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

/** What a download needs to know of a stored object before sending a byte of it. */
export interface StoredObject {
  size: number;
  /** A strong validator of this version of the object (quoted, as in an ETag header). */
  etag: string;
  lastModified: Date;
}

/** One item folder found in storage, with its newest object's time (the sweep spares recent ones). */
export interface StoredItem {
  itemId: string;
  newest: Date;
}

/** An inclusive byte range, as HTTP Range and S3's GetObject count. */
export interface ByteRange {
  start: number;
  end: number;
}

const ITEM_ID = /^[0-9a-f]{32}$/;

/** A file being stored while it is still written (FileStore.storeWhileWritten). */
export interface FileInFlight {
  readonly fileName: string;
  /**
   * The writer is done and `localPath` holds the whole file (the same file, perhaps renamed since, or a new one
   * written in its place). Resolves with the key once the object holds exactly its bytes, and removes the local
   * file, as `adopt` does.
   */
  finish(localPath: string, size: number, signal?: AbortSignal): Promise<string>;
  /** Drops what was stored so far; harmless after finish. */
  abort(): Promise<void>;
}

/** A multipart item upload's parts in storage: the item's file name and the backend's handle (S3's UploadId). */
export interface PartsUpload {
  itemId: string;
  fileName: string;
  ref: string | null;
}

/** A part received, as storage acknowledged it. */
export interface StoredPart {
  partNum: number;
  etag: string;
  size: number;
}

/**
 * The storage server did not answer, or answered that it cannot right now (5xx, throttling): a job retries it
 * (core/jobs/failure.ts knows the code), unlike a refusal such as a missing bucket or bad credentials.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'ESTORAGEUNAVAILABLE';
}

/**
 * Item files: uploads, publish sources and finished exports, each under `items/<itemId>/<name>`. The key (that
 * relative path) is what the items table stores, so a deployment can move from DATA_DIR to a bucket by copying
 * files to objects of the same names (`npm run storage:migrate`). Two backends (storage.module.ts picks one):
 * the local filesystem under DATA_DIR, and an S3-compatible bucket. Nothing else reads or writes item files.
 *
 * Everything that produces a file writes it to local disk first (an upload's temp file, a job's workDir) and hands it
 * over with `adopt`, which returns only once the stored object is complete: a completed item always has its file.
 */
export abstract class FileStore {
  abstract readonly kind: 'local' | 's3';

  /** Only the base name is kept, and anything that could escape the folder or confuse a shell is replaced. */
  static safeName(name: string): string {
    const base = path
      .basename(name.replace(/\\/g, '/'))
      .replace(/[^\w.\- ()]/g, '_')
      .replace(/^\.+/, '_');
    return base.slice(-200) || 'file';
  }

  /** The key of an item's file: the same whatever the backend. */
  static itemKey(itemId: string, fileName: string): string {
    if (!ITEM_ID.test(itemId)) throw new Error(`not an item id: ${itemId.slice(0, 40)}`);
    return `items/${itemId}/${FileStore.safeName(fileName)}`;
  }

  /**
   * The key of one version of an item file that is not its data (a resource, an info file, the thumbnail): under a
   * folder whose name starts with a dot, which no data file name keeps (safeName), and with a random part, so a new
   * version never overwrites the object a row still names.
   */
  static itemFileKey(itemId: string, folder: 'resources' | 'info' | 'attachments', fileName: string): string {
    if (!ITEM_ID.test(itemId)) throw new Error(`not an item id: ${itemId.slice(0, 40)}`);
    return `items/${itemId}/.${folder}/${randomUUID()}-${FileStore.safeName(fileName).slice(-100)}`;
  }

  /**
   * The key of a group's file (its thumbnail): beside the item folders, never under `items/`, whose folders the sweep
   * reads as items.
   */
  static groupKey(groupId: string, fileName: string): string {
    if (!ITEM_ID.test(groupId)) throw new Error(`not a group id: ${groupId.slice(0, 40)}`);
    return `groups/${groupId}/${FileStore.safeName(fileName)}`;
  }

  /**
   * The key of a user's own file (their thumbnail): `users/<userId>/<name>`, outside `items/`, so the item sweep never
   * takes it for an orphan. The user row names the file; replacing it removes the old one.
   */
  static userKey(userId: string, fileName: string): string {
    if (!ITEM_ID.test(userId)) throw new Error(`not a user id: ${userId.slice(0, 40)}`);
    return `users/${userId}/${FileStore.safeName(fileName)}`;
  }

  /** Item ids are 32 hex characters; anything else never names a folder of ours (and could name '..'). */
  static isItemId(id: string): boolean {
    return ITEM_ID.test(id);
  }

  /**
   * Moves a finished local file into the item and removes the local file; resolves once the stored object is
   * complete and readable. Returns the key. Storing the same item and name again replaces the object.
   */
  adopt(itemId: string, localPath: string, fileName: string, signal?: AbortSignal): Promise<string> {
    return this.adoptAs(FileStore.itemKey(itemId, fileName), localPath, signal);
  }

  /** `adopt` under a key built by `itemKey`, `itemFileKey`, `groupKey` or `userKey`; resolves with the key once the object is complete. */
  abstract adoptAs(key: string, localPath: string, signal?: AbortSignal): Promise<string>;

  /** Removes one object; nothing to remove is not an error. */
  abstract remove(key: string): Promise<void>;

  /**
   * Starts storing a file that is still being written at localPath, so that storing it overlaps writing it;
   * undefined when the backend gains nothing by it (on local disk `adopt` is a rename).
   */
  storeWhileWritten(_itemId: string, _localPath: string, _fileName: string): FileInFlight | undefined {
    return undefined;
  }

  /**
   * Multipart item uploads (content/users/<u>/items/<id>/addPart): parts are stored as they arrive, in any order,
   * and become the item's file `items/<itemId>/<fileName>` at `assembleParts`. Returns the backend's handle.
   */
  abstract startParts(itemId: string, fileName: string): Promise<string | null>;

  /** Stores one part from a finished local file (removed afterwards); the same number again replaces it. */
  abstract putPart(u: PartsUpload, partNum: number, localPath: string, size: number): Promise<string>;

  /** Removes a part the same number replaced (its etag), where the backend keeps one; S3 replaces it itself. */
  abstract removePart(u: PartsUpload, etag: string): Promise<void>;

  /**
   * Joins the parts, in the order given, into the item's file without holding it in memory; returns its key. Run
   * again after an interruption, it finishes the same file.
   */
  abstract assembleParts(u: PartsUpload, parts: StoredPart[]): Promise<string>;

  /** Removes the parts of an upload that will not be assembled; nothing to remove is not an error. */
  abstract dropParts(u: PartsUpload): Promise<void>;

  /** Size and validators of a stored object; null when there is none. */
  abstract stat(key: string): Promise<StoredObject | null>;

  /** The object's bytes, or a range of them; with `etag`, only from that version of the object (a download's HEAD). */
  abstract read(key: string, range?: ByteRange, etag?: string): Promise<Readable>;

  /**
   * A local path to the object for readers that open files by name (GDAL, yauzl): the file itself on the local
   * backend, a copy downloaded into `dir` (a job's private workDir, removed with it) on S3.
   */
  abstract localFile(key: string, dir: string, signal?: AbortSignal): Promise<string>;

  /** The file on local disk that HTTP can send as it is (Range, ETag by express); undefined on S3. */
  abstract localPath(key: string): string | undefined;

  /**
   * A short-lived URL from which a client downloads the object itself, when the deployment chose redirects
   * (S3_PRESIGNED_DOWNLOAD_S); undefined when downloads go through the API.
   */
  abstract downloadUrl(key: string, fileName: string, contentType: string): Promise<string | undefined>;

  /** Removes every object of the item; nothing to remove is not an error. */
  abstract removeItem(itemId: string): Promise<void>;

  /** The item folders in storage, a page at a time (for the sweep). */
  abstract listItems(): AsyncIterable<StoredItem[]>;

  /**
   * Removes what interrupted writes left in storage itself and that no reader can see (multipart uploads of a
   * killed worker) when started before `before`; returns how many. The local backend writes by rename and has none.
   */
  abstract sweepStaging(before: Date): Promise<number>;
}

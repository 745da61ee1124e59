import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Settings } from '../config/env';
import {
  ByteRange,
  FileInFlight,
  FileStore,
  PartsUpload,
  StorageUnavailableError,
  StoredItem,
  StoredObject,
  StoredPart,
} from './file-store';
import { OCTET_STREAM } from './item-mime';
import { FollowingUpload } from './s3-following-upload';
import { s3Client } from './s3-client';

/**
 * Parts of a multipart upload. lib-storage holds at most queueSize × partSize in memory per upload (32 MiB here),
 * whatever the file's size; 8 MiB parts keep a 10,000-part upload (S3's limit) good for 78 GiB.
 */
export const PART_SIZE = 8 * 1024 * 1024;
export const PART_QUEUE = 4;

const notFound = (e: unknown) =>
  e instanceof S3ServiceException && (e.$metadata.httpStatusCode === 404 || e.name === 'NotFound' || e.name === 'NoSuchKey');

const NETWORK = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND|UND_ERR_SOCKET)$/;

/** Faults of the server or the way to it, after the SDK's own retries: worth a job's retry later. */
function unavailable(e: unknown): unknown {
  if (e instanceof S3ServiceException) {
    const status = e.$metadata.httpStatusCode ?? 0;
    if (e.$fault !== 'server' && status < 500 && !['SlowDown', 'RequestTimeout', 'Throttling'].includes(e.name)) return e;
  } else {
    const { code, name } = (e ?? {}) as { code?: unknown; name?: unknown };
    if (!(typeof code === 'string' && NETWORK.test(code)) && name !== 'TimeoutError') return e;
  }
  return new StorageUnavailableError(`The file storage is unavailable: ${(e as Error).message || (e as Error).name}`, { cause: e });
}

/**
 * Item files as objects `<prefix>items/<itemId>/<name>` in an S3-compatible bucket, so API and workers on different
 * hosts share nothing but PostgreSQL, Redis and the bucket. Writes are multipart uploads, which S3 makes visible only
 * once completed: a writer killed mid-upload leaves no object, only parts that `sweepStaging` aborts.
 */
export class S3FileStore extends FileStore {
  readonly kind = 's3';
  private readonly client: S3Client;
  /** Signs download URLs for the address clients reach (S3_PUBLIC_ENDPOINT), which may differ from ours. */
  private readonly signer: S3Client;

  constructor(private readonly s3: S3Settings) {
    super();
    this.client = s3Client(s3);
    this.signer = s3.publicEndpoint ? s3Client({ ...s3, endpoint: s3.publicEndpoint }) : this.client;
  }

  async adoptAs(key: string, localPath: string, signal?: AbortSignal): Promise<string> {
    const upload = new Upload({
      client: this.client,
      // The object keeps no type worth trusting: a download's type comes from the item type (item-mime.ts).
      params: { Bucket: this.s3.bucket, Key: this.s3.prefix + key, Body: createReadStream(localPath), ContentType: OCTET_STREAM },
      partSize: PART_SIZE,
      queueSize: PART_QUEUE,
      // A failed upload is aborted at once; one whose process dies is left to sweepStaging.
      leavePartsOnError: false,
    });
    await this.uploaded(
      () => upload.done(),
      () => upload.abort(),
      signal,
    );
    await fs.rm(localPath, { force: true });
    return key;
  }

  async remove(key: string): Promise<void> {
    await this.deleteKeys([this.s3.prefix + key]);
  }

  /** Parts go up while the writer writes; see FollowingUpload for how changed bytes are caught. */
  storeWhileWritten(itemId: string, localPath: string, fileName: string): FileInFlight {
    const key = FileStore.itemKey(itemId, fileName);
    const upload = new FollowingUpload(this.client, this.s3.bucket, this.s3.prefix + key, localPath, PART_SIZE, PART_QUEUE);
    return {
      fileName,
      finish: async (path, size, signal) => {
        await this.uploaded(
          () => upload.finish(path, size),
          () => upload.abort(),
          signal,
        );
        await fs.rm(path, { force: true });
        return key;
      },
      abort: () => upload.abort(),
    };
  }

  /** Runs an upload to its end; a cancel aborts it, and a failure of the server or the way to it becomes retryable. */
  private async uploaded(run: () => Promise<unknown>, abort: () => Promise<unknown>, signal?: AbortSignal): Promise<void> {
    const aborted = () => void abort().catch(() => undefined);
    signal?.addEventListener('abort', aborted, { once: true });
    try {
      await run();
    } catch (e) {
      throw signal?.aborted ? e : unavailable(e);
    } finally {
      signal?.removeEventListener('abort', aborted);
    }
  }

  /** An item's multipart upload is an S3 multipart upload of its file: S3 joins the parts itself at completion. */
  async startParts(itemId: string, fileName: string): Promise<string> {
    const Key = this.s3.prefix + FileStore.itemKey(itemId, fileName);
    try {
      const r = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.s3.bucket, Key, ContentType: OCTET_STREAM }));
      return r.UploadId!;
    } catch (e) {
      throw unavailable(e);
    }
  }

  async putPart(u: PartsUpload, partNum: number, localPath: string, size: number): Promise<string> {
    const Key = this.s3.prefix + FileStore.itemKey(u.itemId, u.fileName);
    try {
      // Streamed from the file: with its length known the SDK sends it as it reads it.
      const r = await this.client.send(
        new UploadPartCommand({
          Bucket: this.s3.bucket,
          Key,
          UploadId: u.ref!,
          PartNumber: partNum,
          Body: createReadStream(localPath),
          ContentLength: size,
        }),
      );
      await fs.rm(localPath, { force: true });
      return r.ETag ?? '""';
    } catch (e) {
      throw unavailable(e);
    }
  }

  async removePart(): Promise<void> {
    // S3 keeps one part per number: uploading it again replaced it.
  }

  async assembleParts(u: PartsUpload, parts: StoredPart[]): Promise<string> {
    const key = FileStore.itemKey(u.itemId, u.fileName);
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.s3.bucket,
          Key: this.s3.prefix + key,
          UploadId: u.ref!,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNum, ETag: p.etag })) },
        }),
      );
    } catch (e) {
      // Completed by an earlier attempt that died before recording it: the object is there, the upload gone.
      const total = parts.reduce((n, p) => n + p.size, 0);
      if (e instanceof S3ServiceException && e.name === 'NoSuchUpload' && (await this.stat(key))?.size === total) return key;
      throw unavailable(e);
    }
    return key;
  }

  async dropParts(u: PartsUpload): Promise<void> {
    if (!u.ref) return;
    const Key = this.s3.prefix + FileStore.itemKey(u.itemId, u.fileName);
    await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.s3.bucket, Key, UploadId: u.ref })).catch((e) => {
      // Gone already; or a server without abort (s3rver), where a bucket lifecycle rule removes stale parts.
      if (!(e instanceof S3ServiceException && ['NoSuchUpload', 'NotImplemented', 'MethodNotAllowed'].includes(e.name))) throw e;
    });
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.s3.bucket, Key: this.s3.prefix + key }));
      return { size: r.ContentLength ?? 0, etag: r.ETag ?? '""', lastModified: r.LastModified ?? new Date(0) };
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async read(key: string, range?: ByteRange, etag?: string): Promise<Readable> {
    const r = await this.client.send(
      new GetObjectCommand({
        Bucket: this.s3.bucket,
        Key: this.s3.prefix + key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        ...(etag ? { IfMatch: etag } : {}),
      }),
    );
    // In Node the SDK's body is the HTTP response itself: it streams, nothing is buffered.
    return r.Body as Readable;
  }

  async localFile(key: string, dir: string, signal?: AbortSignal): Promise<string> {
    // Under its own name: readers derive names from it (GDAL names a CSV's layer after the file).
    const folder = await fs.mkdtemp(path.join(dir, 'source-'));
    const target = path.join(folder, FileStore.safeName(path.basename(key)));
    try {
      await pipeline(await this.read(key), createWriteStream(target), { signal });
    } catch (e) {
      throw signal?.aborted ? e : unavailable(e);
    }
    return target;
  }

  localPath(): undefined {
    return undefined;
  }

  async downloadUrl(key: string, fileName: string, contentType: string): Promise<string | undefined> {
    if (!this.s3.presignedDownloadS) return undefined;
    const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return getSignedUrl(
      this.signer,
      new GetObjectCommand({
        Bucket: this.s3.bucket,
        Key: this.s3.prefix + key,
        // The object keeps no name or type of its own worth trusting; the response carries the item type's (item-mime.ts).
        ResponseContentDisposition: `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
        ResponseContentType: contentType,
      }),
      { expiresIn: this.s3.presignedDownloadS },
    );
  }

  async removeItem(itemId: string): Promise<void> {
    if (!FileStore.isItemId(itemId)) return;
    const prefix = `${this.s3.prefix}items/${itemId}/`;
    for await (const keys of this.keys(prefix)) await this.deleteKeys(keys.map((k) => k.key));
  }

  async *listItems(): AsyncIterable<StoredItem[]> {
    const prefix = `${this.s3.prefix}items/`;
    // Objects are listed in key order, so an item's objects are adjacent: each page closes the items it finished.
    let open: StoredItem | undefined;
    for await (const page of this.keys(prefix)) {
      const done: StoredItem[] = [];
      for (const { key, modified } of page) {
        const itemId = key.slice(prefix.length).split('/')[0];
        if (open?.itemId === itemId) {
          if (modified > open.newest) open.newest = modified;
          continue;
        }
        if (open) done.push(open);
        open = FileStore.isItemId(itemId) ? { itemId, newest: modified } : undefined;
      }
      if (done.length) yield done;
    }
    if (open) yield [open];
  }

  async sweepStaging(before: Date): Promise<number> {
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const r = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.s3.bucket,
          Prefix: `${this.s3.prefix}items/`,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const u of r.Uploads ?? []) {
        if (!u.Key || !u.UploadId || !u.Initiated || u.Initiated >= before) continue;
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.s3.bucket, Key: u.Key, UploadId: u.UploadId }));
        aborted++;
      }
      keyMarker = r.IsTruncated ? r.NextKeyMarker : undefined;
      uploadIdMarker = r.IsTruncated ? r.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return aborted;
  }

  /** Every object under a prefix, a listing page (up to 1,000) at a time. */
  private async *keys(prefix: string): AsyncIterable<{ key: string; modified: Date; size: number }[]> {
    let token: string | undefined;
    do {
      const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.s3.bucket, Prefix: prefix, ContinuationToken: token }));
      const page = (r.Contents ?? [])
        .filter((o) => o.Key)
        .map((o) => ({ key: o.Key!, modified: o.LastModified ?? new Date(0), size: o.Size ?? 0 }));
      if (page.length) yield page;
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const r = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.s3.bucket,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = (r.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`could not delete ${failed.length} objects: ${failed[0].Code} ${failed[0].Message}`);
    }
  }
}

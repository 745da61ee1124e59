import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { OCTET_STREAM } from './item-mime';

/** How often the file is looked at for a newly completed part. */
const POLL_MS = 50;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64');

interface SentPart {
  etag: string;
  /** SHA-256 of the bytes sent: the part is sent again when the finished file holds other bytes there. */
  sha: string;
}

/**
 * A multipart upload that follows a file while a writer produces it: each part (`partSize` bytes) is sent as soon
 * as the file has grown past its end, and when the writer is done every part is compared, by SHA-256, with the
 * finished file; parts whose bytes changed since (a header patched on close, a page rewritten by SQLite) are sent
 * again, and the object is completed from parts that all hold the finished file's bytes. A file written front to
 * back (a COPY's CSV) has nothing left to send but its last part; a GeoPackage sends again the pages SQLite went
 * back to. A file under one part is sent with one PutObject at the end.
 *
 * Memory: `queueSize` + 1 part buffers, allocated once and reused, whatever the file's size (a fresh buffer per
 * part left garbage that the collector took its time over).
 */
export class FollowingUpload {
  private handle?: FileHandle;
  private uploadId?: Promise<string>;
  private readonly sent = new Map<number, SentPart>();
  private readonly inFlight = new Set<Promise<void>>();
  private nextPart = 1;
  private timer?: NodeJS.Timeout;
  private failure?: unknown;
  private stopped = false;
  /** Part buffers not in use. */
  private readonly buffers: Buffer[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly localPath: string,
    private readonly partSize: number,
    private readonly queueSize: number,
  ) {
    this.schedule();
  }

  private schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  /** Sends the parts the file now covers, a few at a time; errors are kept for `finish`. */
  private async poll(): Promise<void> {
    try {
      if (!this.handle) {
        const opened = await fs.open(this.localPath, 'r').catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return undefined; // not created yet
          throw e;
        });
        // Finished or aborted while opening: whoever stopped it has closed what it knew of.
        if (opened && this.stopped) return void (await opened.close());
        this.handle = opened;
      }
      if (this.handle) {
        const { size } = await this.handle.stat();
        while (!this.stopped && this.nextPart * this.partSize <= size && this.inFlight.size < this.queueSize) {
          this.track(this.sendFrom(this.handle, this.nextPart++));
        }
      }
    } catch (e) {
      this.failure ??= e;
      return;
    }
    this.schedule();
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((e) => void (this.failure ??= e)).finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /**
   * A part buffer: at most queueSize sends hold one (callers wait for a free slot) and finish compares in one
   * more, so the pool never grows past queueSize + 1.
   */
  private buffer(): Buffer {
    return this.buffers.pop() ?? Buffer.allocUnsafe(this.partSize);
  }

  /** Reads one part of the file into buf; returns the bytes read. */
  private async readPart(handle: FileHandle, part: number, buf: Buffer): Promise<Buffer> {
    const { bytesRead } = await handle.read(buf, 0, this.partSize, (part - 1) * this.partSize);
    return buf.subarray(0, bytesRead);
  }

  /** Reads and sends one part while following the file. */
  private async sendFrom(handle: FileHandle, part: number): Promise<void> {
    const buf = this.buffer();
    try {
      const body = await this.readPart(handle, part, buf);
      await this.send(part, body, sha256(body));
    } finally {
      this.buffers.push(buf);
    }
  }

  private async send(part: number, body: Buffer, sha: string): Promise<void> {
    this.uploadId ??= this.client
      .send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, ContentType: OCTET_STREAM }))
      .then((r) => r.UploadId!);
    const uploadId = await this.uploadId;
    const r = await this.client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId, PartNumber: part, Body: body }),
    );
    this.sent.set(part, { etag: r.ETag!, sha });
  }

  /** Stops following and waits for the parts under way. */
  private async settle(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  /**
   * The writer is done: `path` holds the finished file of `size` bytes (the same file, maybe renamed, or a new one
   * written in its place). Resolves once the object holds exactly those bytes.
   */
  async finish(path: string, size: number): Promise<void> {
    await this.settle();
    this.failure = undefined; // a part that failed while following is simply sent again below
    const file = await fs.open(path, 'r');
    try {
      const parts = Math.max(1, Math.ceil(size / this.partSize));
      if (parts === 1 && this.uploadId === undefined) {
        const body = await file.readFile();
        if (body.length !== size) throw new Error(`the file has ${body.length} bytes, not ${size}`);
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentType: OCTET_STREAM }));
        return;
      }
      // Compare part by part with the finished file; send what differs, the bytes just compared, a few at a time.
      for (let part = 1; part <= parts && !this.failure; part++) {
        while (this.inFlight.size >= this.queueSize) await Promise.race(this.inFlight);
        const buf = this.buffer();
        let sending = false;
        try {
          const body = await this.readPart(file, part, buf);
          const expected = Math.min(this.partSize, size - (part - 1) * this.partSize);
          if (body.length !== expected) throw new Error(`the file ended early: part ${part} has ${body.length} of ${expected} bytes`);
          const sha = sha256(body);
          if (this.sent.get(part)?.sha === sha) continue;
          this.track(this.send(part, body, sha).finally(() => this.buffers.push(buf)));
          sending = true;
        } finally {
          if (!sending) this.buffers.push(buf);
        }
      }
      while (this.inFlight.size) await Promise.all([...this.inFlight]);
      if (this.failure) throw this.failure;
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: await this.uploadId,
          MultipartUpload: {
            Parts: Array.from({ length: parts }, (_, i) => ({ PartNumber: i + 1, ETag: this.sent.get(i + 1)!.etag })),
          },
        }),
      );
      this.uploadId = undefined;
    } finally {
      await file.close();
      await this.handle?.close();
      this.handle = undefined;
    }
  }

  /** Drops the parts sent so far (a job that failed or delivered another file). */
  async abort(): Promise<void> {
    await this.settle().catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    const uploadId = await this.uploadId?.catch(() => undefined);
    this.uploadId = undefined;
    if (uploadId)
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: uploadId }))
        .catch(() => undefined);
  }
}

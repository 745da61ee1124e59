import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { Periodic } from '../core/periodic';
import { FileStore, PartsUpload, StoredPart } from '../core/storage/file-store';
import { itemFileMime } from '../core/storage/item-mime';
import { ContentRepository } from './content.repository';
import { UploadRepository, UploadRow } from './upload.repository';

/** Every part but the last must have this much, as ArcGIS documents and S3 requires of a multipart upload. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** A commit beats this often; one silent for STALE_MS is taken over by another process (its own died). */
const BEAT_MS = 30_000;
const STALE_MS = 4 * BEAT_MS;
/** How often each API process looks for uploads past MULTIPART_UPLOAD_TTL_H and commits whose process died. */
const SWEEP_MS = 60_000;

export interface UploadedPart {
  path: string;
  size: number;
}

const NOT_UPLOADING = (id: string) =>
  Errors.badRequest('Item is not being uploaded in parts.', [
    `Item '${id}' has no multipart upload in progress: add it with multipart=true.`,
  ]);

/**
 * Multipart uploads (addItem multipart=true, addPart, parts, commit, cancel). Parts go from the request's temp file
 * straight to storage (FileStore.putPart); commit joins them there in the background, as ArcGIS does, while the
 * item's status says `processing`. An upload not committed within MULTIPART_UPLOAD_TTL_H is swept: its parts are
 * removed and its item fails.
 */
@Injectable()
export class UploadService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UploadService.name);
  private readonly running = new Set<Promise<void>>();
  private readonly periodic = new Periodic(
    () => this.pass(new Date()),
    (e) => this.logger.warn(`multipart upload sweep failed: ${e.message}`),
  );

  constructor(
    private readonly repo: UploadRepository,
    private readonly items: ContentRepository,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.storage.sweepIntervalS) this.periodic.start(SWEEP_MS, 5_000 + Math.random() * SWEEP_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
    await Promise.allSettled([...this.running]);
  }

  /** Starts the upload of a new item: `insertItem` writes the item row in the transaction that records the upload. */
  async begin(itemId: string, fileName: string, insertItem: (m: EntityManager) => Promise<void>): Promise<void> {
    const ref = await this.files.startParts(itemId, fileName);
    try {
      await this.repo.transaction(async (m) => {
        await insertItem(m);
        await this.repo.create(m, itemId, fileName, ref);
      });
    } catch (e) {
      await this.files.dropParts({ itemId, fileName, ref }).catch(() => undefined);
      throw e;
    }
  }

  async addPart(caller: Caller, ownerName: string, id: string, partNum: number, file: UploadedPart | undefined) {
    const upload = await this.requireUpload(caller, ownerName, id);
    const { maxParts, partMaxBytes, maxBytes } = this.config.multipart;
    if (partNum > maxParts) throw Errors.badRequest(`'partNum' must be at most ${maxParts}.`, ['MULTIPART_MAX_PARTS']);
    if (!file) throw Errors.badRequest("'file' is required.", ['Send the part as the multipart field file.']);
    if (upload.state !== 'uploading') throw committing(id);
    if (file.size > partMaxBytes) throw Errors.badRequest(`The part is larger than ${mib(partMaxBytes)} (MULTIPART_PART_MAX_MB).`);
    const full = () => Errors.badRequest(`The parts would be larger than ${mib(maxBytes)} together (MULTIPART_MAX_MB).`);
    // Checked first so that a full upload stores nothing; the write checks again, atomically with recording the part.
    if ((await this.repo.bytesBesides(id, partNum)) + file.size > maxBytes) throw full();
    const etag = await this.files.putPart(partsOf(upload), partNum, file.path, file.size);
    const recorded = await this.repo.putPart(id, partNum, file.size, etag, maxBytes).catch(async (e) => {
      await this.files.removePart(partsOf(upload), etag).catch(() => undefined);
      throw e;
    });
    if ('refused' in recorded) {
      // Committed, cancelled or expired while the part was stored, or filled by parts sent meanwhile: nothing names it.
      await this.files.removePart(partsOf(upload), etag).catch(() => undefined);
      throw recorded.refused === 'full' ? full() : committing(id);
    }
    const { replaced } = recorded;
    if (replaced && replaced !== etag) await this.files.removePart(partsOf(upload), replaced);
    return { success: true, id };
  }

  async parts(caller: Caller, ownerName: string, id: string) {
    await this.requireUpload(caller, ownerName, id);
    return { parts: (await this.repo.parts(id)).map((p) => p.part_num) };
  }

  /** Checks the parts, then joins them in the background; the item's status follows it. */
  async commit(caller: Caller, ownerName: string, id: string) {
    const upload = await this.requireUpload(caller, ownerName, id);
    if (upload.state === 'committing') return { success: true, id };
    const parts = await this.repo.parts(id);
    if (!parts.length) throw Errors.badRequest('No parts were uploaded.', ['Add the data with addPart before commit.']);
    const small = parts.slice(0, -1).filter((p) => Number(p.size) < MIN_PART_BYTES);
    if (small.length) {
      throw Errors.badRequest('Every part but the last must be at least 5 MB.', [
        `Parts smaller than 5 MB: ${small
          .slice(0, 20)
          .map((p) => p.part_num)
          .join(', ')}.`,
      ]);
    }
    const claimed = await this.repo.transaction(async (m) => {
      const row = await this.repo.claimCommit(m, id);
      if (row) await this.items.setStatus(id, 'processing', 'processing', m);
      return row;
    });
    if (claimed) this.assemble(claimed);
    return { success: true, id };
  }

  /** Abandons the upload: its parts are removed, and the item, which never had data, is deleted. */
  async cancel(caller: Caller, ownerName: string, id: string) {
    const upload = await this.requireUpload(caller, ownerName, id);
    if (upload.state !== 'uploading') throw committing(id);
    const removed = await this.repo.transaction(async (m) => {
      const row = await this.repo.remove(id, m, 'uploading');
      // A protected item is not deleted: the transaction is undone, the upload and the item's files stay.
      if (row && !(await this.items.delete(id, m))) throw Errors.itemProtected(id);
      return row;
    });
    if (!removed) throw committing(id);
    await this.files
      .dropParts(partsOf(upload))
      .catch((e) => this.logger.warn(`could not drop the parts of ${id}: ${(e as Error).message}`));
    await this.files.removeItem(id).catch(() => undefined);
    return { success: true, id };
  }

  /** Whether the item's `processing` is a commit of this service's, not a job waiting for a worker. */
  async committing(id: string): Promise<boolean> {
    return (await this.repo.find(id))?.state === 'committing';
  }

  /** One sweep pass (tests pass a later `now`); a pass already running is joined. */
  sweep(now = new Date()): Promise<{ expired: number; resumed: number }> {
    return this.periodic.run(() => this.pass(now));
  }

  private async pass(now: Date) {
    const expired = await this.repo.takeExpired(new Date(now.getTime() - this.config.multipart.ttlMs));
    for (const u of expired) {
      const hours = Math.round(this.config.multipart.ttlMs / 3600_000);
      const message = `The multipart upload was not committed within ${hours} h; its parts were removed.`;
      await this.repo.transaction((m) => this.items.settle(m, u.item_id, { status: 'failed', message }));
      await this.files
        .dropParts(partsOf(u))
        .catch((e) => this.logger.warn(`could not drop the parts of ${u.item_id}: ${(e as Error).message}`));
    }
    const stale = await this.repo.takeStaleCommits(new Date(now.getTime() - STALE_MS));
    for (const u of stale) this.assemble(u);
    return { expired: expired.length, resumed: stale.length };
  }

  /** Joins the parts and settles the item; runs in the background of the request that committed. */
  private assemble(upload: UploadRow): void {
    const id = upload.item_id;
    const beat = setInterval(() => void this.repo.beat(id).catch(() => undefined), BEAT_MS).unref();
    const run = (async () => {
      const rows = await this.repo.parts(id);
      const parts: StoredPart[] = rows.map((p) => ({ partNum: p.part_num, etag: p.etag, size: Number(p.size) }));
      const size = parts.reduce((n, p) => n + p.size, 0);
      try {
        const key = await this.files.assembleParts(partsOf(upload), parts);
        const item = await this.items.findItem(id);
        const contentType = itemFileMime(item?.type ?? '', upload.file_name);
        await this.repo.transaction(async (m) => {
          if (!(await this.repo.remove(id, m, 'committing'))) return;
          await this.items.settle(m, id, {
            status: 'completed',
            message: 'completed',
            file: { size, filePath: key, name: upload.file_name, contentType },
          });
        });
      } catch (e) {
        this.logger.warn(`commit of ${id} failed: ${(e as Error).message}`);
        await this.repo.transaction(async (m) => {
          if (!(await this.repo.remove(id, m, 'committing'))) return;
          await this.items.settle(m, id, {
            status: 'failed',
            message: `The parts could not be joined: ${(e as Error).message}`.slice(0, 500),
          });
        });
        await this.files.dropParts(partsOf(upload)).catch(() => undefined);
      }
    })()
      .catch((e) => this.logger.error(`commit of ${id} could not record its outcome: ${(e as Error).message}`))
      .finally(() => {
        clearInterval(beat);
        this.running.delete(run);
      });
    this.running.add(run);
  }

  /** The path's owner must own the item and be the caller; anyone else is told the item does not exist. */
  private async requireUpload(caller: Caller, ownerName: string, id: string): Promise<UploadRow> {
    // The path's owner is compared with the item's, not looked up: an unknown name answers as another user's does.
    const item = await this.items.findItem(id);
    if (!item || item.owner.toLowerCase() !== ownerName.toLowerCase() || item.owner_id !== caller.userId) throw Errors.itemNotFound(id);
    const upload = await this.repo.find(id);
    if (!upload) throw NOT_UPLOADING(id);
    return upload;
  }
}

function partsOf(u: Pick<UploadRow, 'item_id' | 'file_name' | 'storage_ref'>): PartsUpload {
  return { itemId: u.item_id, fileName: u.file_name, ref: u.storage_ref };
}

function committing(id: string) {
  return Errors.badRequest('The upload is being committed.', [`Item '${id}' takes no more parts: commit was called.`]);
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

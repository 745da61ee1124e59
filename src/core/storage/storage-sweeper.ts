import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { RESULT_ITEMS, ResultItems } from '../jobs/result-items';
import { Periodic } from '../periodic';
import { FileStore } from './file-store';

/**
 * An item folder is written before its row exists only between an upload's adopt and its insert (milliseconds after
 * the object completes); an hour spares that window with room for clock skew between hosts and the bucket.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;
/**
 * Staging leftovers are spared for a day: a multipart upload or an upload's temp file that old belongs to a process
 * that is gone, as the largest upload (UPLOAD_MAX_MB) or export takes minutes to hours.
 */
export const STAGING_GRACE_MS = 24 * 60 * 60_000;

export interface SweepReport {
  items: number;
  staging: number;
  temp: number;
}

/**
 * What deletes cannot always remove: objects of items whose row is gone (a delete whose storage call failed, an
 * upload whose insert failed after a crash), multipart uploads of killed writers, and upload temp files of a killed
 * API. Runs in every process every STORAGE_SWEEP_INTERVAL_S; every step is idempotent, so processes sweeping at the
 * same time only repeat each other's deletes.
 */
@Injectable()
export class StorageSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StorageSweeper.name);
  private readonly periodic = new Periodic(
    () => this.pass(new Date()),
    (e) => this.logger.warn(`storage sweep failed: ${e.message}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly files: FileStore,
    @Inject(RESULT_ITEMS) private readonly items: ResultItems,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.storage.sweepIntervalS * 1000;
    // Not at start: processes restarted together would all list the bucket at once.
    this.periodic.start(every, Math.min(every, 30_000 + Math.random() * 60_000));
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass; a pass already running is joined rather than doubled. */
  sweep(now = new Date()): Promise<SweepReport> {
    return this.periodic.run(() => this.pass(now));
  }

  private async pass(now: Date): Promise<SweepReport> {
    const report: SweepReport = { items: 0, staging: 0, temp: 0 };
    const orphanBefore = now.getTime() - ORPHAN_GRACE_MS;
    for await (const page of this.files.listItems()) {
      const old = page.filter((i) => i.newest.getTime() < orphanBefore);
      if (!old.length) continue;
      const alive = await this.items.existing(old.map((i) => i.itemId));
      for (const { itemId } of old) {
        if (alive.has(itemId)) continue;
        await this.files.removeItem(itemId);
        report.items++;
      }
    }
    const stagingBefore = new Date(now.getTime() - STAGING_GRACE_MS);
    report.staging = await this.files.sweepStaging(stagingBefore).catch((e) => {
      // Some S3-compatible servers list no multipart uploads; a bucket lifecycle rule does the same job there.
      this.logger.warn(`could not list unfinished multipart uploads: ${(e as Error).message}`);
      return 0;
    });
    report.temp = await this.sweepUploadTemp(stagingBefore);
    if (report.items || report.staging || report.temp) this.logger.log(`storage sweep removed ${JSON.stringify(report)}`);
    return report;
  }

  /** Upload temp files (DATA_DIR/tmp/upload-*, core/http/body.ts) of a process killed mid-request; folders are the jobs'. */
  private async sweepUploadTemp(before: Date): Promise<number> {
    const tmp = path.resolve(this.config.dataDir, 'tmp');
    let removed = 0;
    for (const entry of await fs.readdir(tmp, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isFile() || !entry.name.startsWith('upload-')) continue;
      const file = path.join(tmp, entry.name);
      const s = await fs.stat(file).catch(() => undefined);
      if (!s || s.mtime >= before) continue;
      await fs.rm(file, { force: true });
      removed++;
    }
    return removed;
  }
}

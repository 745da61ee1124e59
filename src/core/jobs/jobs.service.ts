import { Inject, Injectable, Logger } from '@nestjs/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { ArcgisError } from '../errors/arcgis-error';
import { JobQueueService } from './job-queue.service';
import { JOB_QUEUE, JobItem, JobName, JobType } from './job.types';
import { JobRow, JobsRepository } from './jobs.repository';

const QUEUE_OF_TYPE: Record<JobType, JobName> = { export: JobName.ExportItem, publish: JobName.PublishItem };

/** What both processes do with jobs beyond enqueueing: cancel them when their item goes, and end them cleanly. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly repo: JobsRepository,
    private readonly queue: JobQueueService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Enqueues a job whose row is already committed. If Redis refuses, the row (and its item) is failed with a
   * message rather than left queued forever, and the caller gets an envelope error.
   */
  async submit(item: JobItem, what: string): Promise<void> {
    try {
      await this.queue.enqueue(item);
    } catch (e) {
      this.logger.error(`could not enqueue ${what} ${item.data.jobId}: ${(e as Error).message}`);
      await this.end(item.data.jobId, 'failed', `The ${what} could not be queued; try again.`);
      throw new ArcgisError(500, `Unable to queue the ${what}.`, ['The job queue is unavailable; try again shortly.']);
    }
  }

  /**
   * Every unsuccessful end of a job goes through here (a handler's failure, BullMQ failing a stalled job, the
   * reconciler, a cancel): the row and item are failed, and what the job may have written is removed, so a failed
   * export never keeps a file. A worker still writing (a stalled one that wakes up) finds the row finished and
   * removes what it writes itself (ExportProcessor.complete).
   */
  async end(jobId: string, status: 'failed' | 'cancelled', message: string): Promise<JobRow | null> {
    const row = await this.repo.finish(jobId, status, message);
    if (row) await this.removeOutput(row);
    return row;
  }

  /** Whether the database answers now; see jobFailureIsTransient. */
  databaseAnswers(): Promise<boolean> {
    return this.repo.ping();
  }

  /** Whether the job's row is finished (or gone); false when that cannot be told. */
  async alreadyEnded(jobId: string): Promise<boolean> {
    try {
      const row = await this.repo.find(jobId);
      return !row || !['queued', 'processing'].includes(row.status);
    } catch {
      return false;
    }
  }

  /** Files of an export that did not complete: the result item's folder and the worker's staging folders. */
  async removeOutput(row: Pick<JobRow, 'id' | 'type' | 'result_item_id'>): Promise<void> {
    if (row.type !== 'export') return;
    const root = path.resolve(this.config.dataDir);
    try {
      if (row.result_item_id && /^[0-9a-f]{32}$/.test(row.result_item_id))
        await fs.rm(path.join(root, 'items', row.result_item_id), { recursive: true, force: true });
      const tmp = path.join(root, 'tmp');
      for (const name of await fs.readdir(tmp).catch(() => [] as string[])) {
        if (name.startsWith(`export-${row.id}-`)) await fs.rm(path.join(tmp, name), { recursive: true, force: true });
      }
    } catch (e) {
      this.logger.warn(`could not remove the output of job ${row.id}: ${(e as Error).message}`);
    }
  }

  /**
   * Marks the item's unfinished jobs cancelled, drops waiting ones from Redis and ends running ones' database
   * sessions, so the caller (an item delete) does not wait behind a load or export holding the layer's locks.
   */
  async cancelForItem(itemId: string): Promise<number> {
    const active = await this.repo.activeForItem(itemId);
    for (const job of active) {
      await this.end(job.id, 'cancelled', 'Cancelled: the item was deleted.');
      await this.queue.remove(JOB_QUEUE[QUEUE_OF_TYPE[job.type]], job.id);
      await this.repo
        .endSessions(job.id)
        .catch((e) => this.logger.warn(`could not end the sessions of job ${job.id}: ${(e as Error).message}`));
    }
    return active.length;
  }
}

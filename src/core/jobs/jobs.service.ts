import { Inject, Injectable, Logger } from '@nestjs/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { ArcgisError } from '../errors/arcgis-error';
import { newId } from '../ids';
import { FileStore } from '../storage/file-store';
import { JobQueueService } from './job-queue.service';
import { JOB_KINDS, JobKind, kindOf } from './job-contract';
import { JobRow, JobsRepository } from './jobs.repository';

/**
 * A new job: `params` go through its kind's spec before anything is written (what is stored is what the worker
 * will read); `createItem` writes its result item in the job row's transaction.
 */
export interface NewJob {
  ownerId: string;
  sourceItemId: string | null;
  resultItemId: string | null;
  params: object;
  createItem: (m: EntityManager) => Promise<void>;
}

/** Where running jobs keep their files: DATA_DIR/tmp/jobs/<jobId>-<random>. */
export const jobsTempDir = (config: AppConfig) => path.resolve(config.dataDir, 'tmp', 'jobs');
export const JOB_TEMP_NAME = /^([0-9a-f]{32})-[0-9a-f]{8}$/;

/** What both processes do with jobs beyond running them: create and enqueue, cancel when their item goes, end cleanly. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly repo: JobsRepository,
    private readonly queue: JobQueueService,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_KINDS) private readonly kinds: readonly JobKind[],
  ) {}

  /**
   * Validates the parameters with the kind's spec, commits the result item and the job row together, then
   * enqueues. If Redis refuses, the row (and its item) is failed with a message rather than left queued forever,
   * and the caller gets an envelope error. Returns the job id.
   */
  async create(kind: JobKind, job: NewJob): Promise<string> {
    const params = kind.params(job.params);
    const id = newId();
    await this.repo.createWith({ id, type: kind.type, ...job, params }, job.createItem);
    try {
      await this.queue.enqueue(kind, id);
    } catch (e) {
      this.logger.error(`could not enqueue ${kind.type} job ${id}: ${(e as Error).message}`);
      await this.end(id, 'failed', `The ${kind.type} job could not be queued; try again.`);
      throw new ArcgisError(500, `Unable to queue the ${kind.type} job.`, ['The job queue is unavailable; try again shortly.']);
    }
    return id;
  }

  /**
   * Every unsuccessful end of a job goes through here (a handler's failure, BullMQ failing a stalled job, the
   * reconciler, a cancel): the row and item are failed, and what the job may have written is removed, so a failed
   * export never keeps a file. A worker still writing (a stalled one that wakes up) finds the row finished and
   * removes what it moved in itself (JobRunner).
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

  /**
   * Files of a job that did not complete: those stored in its result item (local folder or objects), and its temp
   * folders on this host (other hosts' folders go with their own runner's sweep). Only files
   * the runner adopts live in a result item's folder (a published service has none), so this is right for every kind.
   */
  async removeOutput(row: Pick<JobRow, 'id' | 'result_item_id'>): Promise<void> {
    try {
      // On S3 an upload still running elsewhere (a stalled worker waking up) completes after this; that worker finds
      // the row finished and removes its object itself (JobRunner.complete), and the storage sweep is the backstop.
      if (row.result_item_id) await this.files.removeItem(row.result_item_id);
      const tmp = jobsTempDir(this.config);
      for (const name of await fs.readdir(tmp).catch(() => [] as string[])) {
        if (JOB_TEMP_NAME.exec(name)?.[1] === row.id) await fs.rm(path.join(tmp, name), { recursive: true, force: true });
      }
    } catch (e) {
      this.logger.warn(`could not remove the output of job ${row.id}: ${(e as Error).message}`);
    }
  }

  /**
   * A person's cancel of one unfinished job: the row and its result item end (cancelled, the item failed), a waiting
   * delivery leaves Redis, a running worker's sessions end and it stops at its next look at the row, and what the job
   * wrote is removed. Null when the job had already ended.
   */
  async cancel(jobId: string, message: string): Promise<JobRow | null> {
    const row = await this.repo.finish(jobId, 'cancelled', message);
    if (!row) return null;
    const kind = kindOf(this.kinds, row.type);
    if (kind) await this.queue.remove(kind.queue, row.id);
    await this.repo
      .endSessions(row.id)
      .catch((e) => this.logger.warn(`could not end the sessions of job ${row.id}: ${(e as Error).message}`));
    await this.removeOutput(row);
    return row;
  }

  /**
   * Marks the item's unfinished jobs cancelled in the caller's transaction `m` (an item delete, which holds the item's
   * row, so a refused delete cancels nothing), drops waiting ones from Redis and ends running ones' database
   * sessions, so the delete does not wait behind a load or export holding the layer's locks. Returns the cancelled
   * rows, whose output the caller removes (`removeOutput`) once `m` is committed.
   */
  async cancelForItem(itemId: string, m: EntityManager): Promise<JobRow[]> {
    const cancelled: JobRow[] = [];
    for (const job of await this.repo.activeForItem(itemId, m)) {
      const row = await this.repo.finish(job.id, 'cancelled', 'Cancelled: the item was deleted.', undefined, m);
      if (!row) continue;
      cancelled.push(row);
      // Should `m` roll back, the reconciler enqueues the row again and the ended job retries: nothing is lost.
      const kind = kindOf(this.kinds, job.type);
      if (kind) await this.queue.remove(kind.queue, job.id);
      await this.repo
        .endSessions(job.id)
        .catch((e) => this.logger.warn(`could not end the sessions of job ${job.id}: ${(e as Error).message}`));
    }
    return cancelled;
  }
}

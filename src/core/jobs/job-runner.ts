import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { FileInFlight, FileStore } from '../storage/file-store';
import { classifyFailure, failureMessage, PermanentJobError } from './failure';
import { bullConnection } from './job-queue.service';
import {
  DEFAULT_JOB_OPTIONS,
  JOB_KINDS,
  JobContext,
  JobFile,
  JobHandler,
  JobKind,
  JobOutcome,
  jobSessionName,
  kindOf,
  queuesOf,
} from './job-contract';
import { JobRow, JobsRepository } from './jobs.repository';
import { JOB_TEMP_NAME, jobsTempDir, JobsService } from './jobs.service';
import { releaseFreeMemory } from '../memory/release-memory';

const PROGRESS_EVERY_MS = 1000;
const SWEEP_EVERY_MS = 10 * 60_000;

/** Transient when the error says so, or, when it says nothing recognisable, when the database is unreachable now. */
export async function jobFailureIsTransient(e: unknown, jobs: Pick<JobsService, 'databaseAnswers'>): Promise<boolean> {
  const verdict = classifyFailure(e);
  if (verdict !== 'unknown') return verdict === 'transient';
  return !(await jobs.databaseAnswers());
}

/**
 * Runs every job kind's handler with the rules all jobs share, so a kind only says what it does:
 * - the job row is the source of truth: a finished or cancelled row means the delivery is dropped;
 * - the stored parameters go through the kind's spec again before the handler sees them;
 * - cancellation is polled from the row and surfaces as an AbortSignal; progress is throttled to one write a second;
 * - a failure is permanent unless shown to be transient (failure.ts): a permanent one fails the row at once and ends
 *   the BullMQ job with UnrecoverableError; a transient one is retried with backoff, the row failed after the last try;
 * - a completed job's file is moved into its result item before the row says completed.
 * A killed worker's job is re-delivered by BullMQ once its lock expires (stalled-job check), and runs again.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JobRunner.name);
  private readonly workers: Worker[] = [];
  private sweeper?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_KINDS) private readonly kinds: readonly JobKind[],
    private readonly repo: JobsRepository,
    private readonly jobs: JobsService,
    private readonly files: FileStore,
    private readonly modules: ModuleRef,
  ) {}

  onApplicationBootstrap(): void {
    // Resolve every handler now: a kind without its provider stops the worker at start, not at its first job.
    for (const kind of this.kinds) this.handlerOf(kind);
    for (const queue of queuesOf(this.kinds)) this.workers.push(this.startWorker(queue));
    const sweep = () => this.sweep().catch((e) => this.logger.warn(`temp sweep failed: ${(e as Error).message}`));
    void sweep();
    this.sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  }

  /** SIGTERM: running jobs finish (and write their result) before the database closes; a killed process's job is handed on. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.workers.map((w) => w.close()));
  }

  private handlerOf<P extends object>(kind: JobKind<P>): JobHandler<P> {
    return this.modules.get(kind.handler(), { strict: false });
  }

  /** One delivery of a job. */
  private async process(job: Job<{ jobId: string }>): Promise<void> {
    const row = await this.repo.start(job.data.jobId);
    if (!row) return; // finished, cancelled or deleted meanwhile: nothing to do
    const kind = kindOf(this.kinds, row.type);
    if (!kind) throw new PermanentJobError(`This worker cannot run '${row.type}' jobs.`);
    const cancel = this.repo.watchCancellation(row.id, kind.cancelPollMs);
    const temp = new TempFolder(jobsTempDir(this.config), row.id);
    const inFlight: FileInFlight[] = [];
    try {
      const params = kind.params(row.params);
      const outcome = await this.handlerOf(kind).run(params, this.context(job, row, cancel.signal, temp, inFlight));
      if (cancel.signal.aborted) return;
      await this.complete(row, outcome || {}, cancel.signal, inFlight);
    } catch (e) {
      if (cancel.signal.aborted) return; // cancelled: the row already says so
      if (kind.permanent(e)) throw new PermanentJobError(failureMessage(e));
      throw e;
    } finally {
      cancel.stop();
      // Uploads of files the job did not deliver (it failed, or returned another file) leave nothing behind.
      await Promise.all(inFlight.map((f) => f.abort()));
      await temp.remove();
      // What the job's libraries freed goes back to the system, so the next job starts from the idle size.
      releaseFreeMemory();
    }
  }

  private context(job: Job<{ jobId: string }>, row: JobRow, signal: AbortSignal, temp: TempFolder, inFlight: FileInFlight[]): JobContext {
    let last = 0;
    return {
      jobId: row.id,
      resultItemId: row.result_item_id,
      attempt: job.attemptsMade + 1,
      signal,
      sessionName: (role) => jobSessionName(row.id, role),
      workDir: () => temp.path(),
      storeWhileWriting: (path, fileName) => {
        const started = row.result_item_id ? this.files.storeWhileWritten(row.result_item_id, path, fileName) : undefined;
        if (started) inFlight.push(started);
      },
      progress: (fraction, detail) => {
        const now = Date.now();
        if (now - last < PROGRESS_EVERY_MS && fraction < 1) return;
        last = now;
        const percent = Math.max(0, Math.min(100, Math.round(fraction * 100)));
        // Progress is advisory: a failed write must not fail the job.
        void job.updateProgress({ percent }).catch(() => undefined);
        void this.repo.progress(row.id, `processing: ${percent}%${detail ? ` ${detail}` : ''}`).catch(() => undefined);
      },
    };
  }

  /**
   * The file is stored before the row says completed, so a completed item always has its file: on S3 `adopt` is a
   * multipart upload that resolves only once the object is complete, and a worker killed before that leaves no
   * object (its parts are aborted by the storage sweep); the job is then handed to another worker and uploads again
   * to the same key, so exactly one object remains.
   */
  private async complete(row: JobRow, { file, confirm }: Exclude<JobOutcome, void>, signal: AbortSignal, inFlight: FileInFlight[]) {
    if (!file) {
      await confirm?.();
      await this.repo.finish(row.id, 'completed', 'completed');
      return;
    }
    const itemId = row.result_item_id;
    if (!itemId) throw new Error(`job ${row.id} produced a file but has no result item`);
    let filePath: string;
    try {
      filePath = await this.store(itemId, file, signal, inFlight);
    } catch (e) {
      // Cancelled mid-upload: the cancel removed the item's objects before this upload could finish; make sure.
      if (signal.aborted) await this.files.removeItem(itemId).catch(() => undefined);
      throw e;
    }
    try {
      await confirm?.();
    } catch (e) {
      await this.files.removeItem(itemId);
      throw e;
    }
    const done = await this.repo.finish(row.id, 'completed', 'completed', {
      size: file.size,
      filePath,
      name: file.fileName,
      contentType: file.contentType,
    });
    // Not finished by us: cancelled, or failed meanwhile (a stall past its lock, the reconciler): such an item must
    // have no file, so drop the one just stored. Completed by an earlier delivery of the same job: the file is
    // the same result; keep it.
    if (!done && (await this.repo.find(row.id))?.status !== 'completed') await this.files.removeItem(itemId);
  }

  /** The file's upload started while it was written when there is one for it; else `adopt`. */
  private async store(itemId: string, file: JobFile, signal: AbortSignal, inFlight: FileInFlight[]): Promise<string> {
    const started = inFlight.find((f) => f.fileName === file.fileName);
    if (!started) return this.files.adopt(itemId, file.path, file.fileName, signal);
    const key = await started.finish(file.path, file.size, signal);
    this.logger.log(`job file ${file.fileName} of item ${itemId} stored while it was written`);
    return key;
  }

  /**
   * A killed worker leaves its temp folder behind. Folders of finished jobs are removed; a job still running
   * elsewhere keeps its folder (the folder name carries the job id).
   */
  private async sweep(): Promise<void> {
    const tmp = jobsTempDir(this.config);
    for (const name of await fs.readdir(tmp).catch(() => [] as string[])) {
      const id = JOB_TEMP_NAME.exec(name)?.[1];
      if (!id) continue;
      const row = await this.repo.find(id).catch(() => undefined);
      if (row === undefined || (row && (row.status === 'queued' || row.status === 'processing'))) continue;
      await fs.rm(path.join(tmp, name), { recursive: true, force: true });
    }
  }

  private startWorker(queue: string): Worker {
    const worker = new Worker<{ jobId: string }>(
      queue,
      async (job) => {
        const started = Date.now();
        this.logger.log(`job ${job.name} ${job.data.jobId} attempt ${job.attemptsMade + 1} started`);
        try {
          await this.process(job);
          this.logger.log(`job ${job.data.jobId} done in ${Date.now() - started} ms`);
        } catch (e) {
          await this.failed(job, e);
        }
      },
      {
        connection: bullConnection(this.config),
        prefix: this.config.queuePrefix,
        concurrency: this.config.workerConcurrency,
        // A killed worker's lock expires after lockDuration; the stalled check then hands the job to another worker.
        lockDuration: this.config.jobLockMs,
        stalledInterval: Math.max(1000, Math.floor(this.config.jobLockMs / 2)),
        maxStalledCount: 3,
      },
    );
    worker.on('error', (e) => this.logger.error(`queue ${queue}: ${e.message}`));
    // BullMQ fails a job on its own when it stalls too often; the handler never sees that, so the row is closed here.
    // end() only touches unfinished rows, so this is harmless after the handler already recorded the failure.
    worker.on('failed', (job, err) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
      if (err instanceof UnrecoverableError || job.attemptsMade >= attempts || /stalled/i.test(err.message)) {
        this.jobs
          .end(job.data.jobId, 'failed', failureMessage(err))
          .catch((e) => this.logger.error(`could not record failure of ${job.data.jobId}: ${(e as Error).message}`));
      }
    });
    return worker;
  }

  /** Decides between failing the job now and letting BullMQ retry it; returns only when the row ended elsewhere. */
  private async failed(job: Job<{ jobId: string }>, e: unknown): Promise<void> {
    // Cancelled (its sessions ended by the delete) or failed elsewhere meanwhile: the row already says how it ended.
    if (await this.jobs.alreadyEnded(job.data.jobId)) {
      this.logger.log(`job ${job.data.jobId} stopped: its row was finished meanwhile (${failureMessage(e)})`);
      return;
    }
    const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
    const transient = await jobFailureIsTransient(e, this.jobs);
    if (!transient || job.attemptsMade + 1 >= attempts) {
      const message = transient ? `Failed after ${job.attemptsMade + 1} attempts: ${failureMessage(e)}` : failureMessage(e);
      await this.jobs.end(job.data.jobId, 'failed', message);
      this.logger.warn(`job ${job.data.jobId} failed (${transient ? 'attempts exhausted' : 'permanent'}): ${message}`);
      throw new UnrecoverableError(message);
    }
    this.logger.warn(`job ${job.data.jobId} attempt ${job.attemptsMade + 1} failed, will retry: ${failureMessage(e)}`);
    throw e;
  }
}

/** A job's private folder: created on first use, removed when the delivery ends, named so the sweep can tell whose. */
class TempFolder {
  private created?: Promise<string>;

  constructor(
    private readonly root: string,
    private readonly jobId: string,
  ) {}

  path(): Promise<string> {
    this.created ??= (async () => {
      const dir = path.join(this.root, `${this.jobId}-${randomBytes(4).toString('hex')}`);
      await fs.mkdir(dir, { recursive: true });
      return dir;
    })();
    return this.created;
  }

  async remove(): Promise<void> {
    if (this.created) await fs.rm(await this.created, { recursive: true, force: true }).catch(() => undefined);
  }
}

import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { AppConfig } from '../config/env';
import { classifyFailure, failureMessage, PermanentJobError } from './failure';
import { bullConnection } from './job-queue.service';
import { DEFAULT_JOB_OPTIONS, JobName, QueueName } from './job.types';
import { JobsService } from './jobs.service';

export { PermanentJobError } from './failure';

/**
 * Runs one queue's jobs with the rules every job shares: the job row is the source of truth (a finished or
 * cancelled row means the delivery is dropped); a failure is permanent unless shown to be transient (failure.ts),
 * and a permanent one fails the row at once and ends the BullMQ job with UnrecoverableError (no further attempt);
 * a transient one is retried with backoff and the row is failed with a message after the last attempt. A killed
 * worker's job is re-delivered by BullMQ once its lock expires (stalled-job check), and the handler runs again.
 */
export type JobHandlers = Partial<Record<JobName, (job: Job<{ jobId: string }>) => Promise<void>>>;

/** Transient when the error says so, or, when it says nothing recognisable, when the database is unreachable now. */
export async function jobFailureIsTransient(e: unknown, jobs: Pick<JobsService, 'databaseAnswers'>): Promise<boolean> {
  const verdict = classifyFailure(e);
  if (verdict !== 'unknown') return verdict === 'transient';
  return !(await jobs.databaseAnswers());
}

export function startQueueWorker(queue: QueueName, config: AppConfig, jobs: JobsService, handlers: JobHandlers, logger: Logger): Worker {
  const handler = (job: Job<{ jobId: string }>) => {
    const run = handlers[job.name as JobName];
    if (!run) throw new PermanentJobError(`Unknown job '${job.name}' on the ${queue} queue.`);
    return run(job);
  };
  const worker = new Worker<{ jobId: string }>(
    queue,
    async (job) => {
      const started = Date.now();
      logger.log(`job ${job.name} ${job.data.jobId} attempt ${job.attemptsMade + 1} started`);
      try {
        await handler(job);
        logger.log(`job ${job.data.jobId} done in ${Date.now() - started} ms`);
      } catch (e) {
        // Cancelled (its sessions ended by the delete) or failed elsewhere meanwhile: the row already says how it ended.
        if (await jobs.alreadyEnded(job.data.jobId)) {
          logger.log(`job ${job.data.jobId} stopped: its row was finished meanwhile (${failureMessage(e)})`);
          return;
        }
        const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
        const transient = await jobFailureIsTransient(e, jobs);
        if (!transient || job.attemptsMade + 1 >= attempts) {
          const message = transient ? `Failed after ${job.attemptsMade + 1} attempts: ${failureMessage(e)}` : failureMessage(e);
          await jobs.end(job.data.jobId, 'failed', message);
          logger.warn(`job ${job.data.jobId} failed (${transient ? 'attempts exhausted' : 'permanent'}): ${message}`);
          throw new UnrecoverableError(message);
        }
        logger.warn(`job ${job.data.jobId} attempt ${job.attemptsMade + 1} failed, will retry: ${failureMessage(e)}`);
        throw e;
      }
    },
    {
      connection: bullConnection(config),
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
      // A killed worker's lock expires after lockDuration; the stalled check then hands the job to another worker.
      lockDuration: config.jobLockMs,
      stalledInterval: Math.max(1000, Math.floor(config.jobLockMs / 2)),
      maxStalledCount: 3,
    },
  );
  worker.on('error', (e) => logger.error(`queue ${queue}: ${e.message}`));
  // BullMQ fails a job on its own when it stalls too often; the handler never sees that, so the row is closed here.
  // end() only touches unfinished rows, so this is harmless after the handler already recorded the failure.
  worker.on('failed', (job, err) => {
    if (!job) return;
    const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
    if (err instanceof UnrecoverableError || job.attemptsMade >= attempts || /stalled/i.test(err.message)) {
      jobs
        .end(job.data.jobId, 'failed', failureMessage(err))
        .catch((e) => logger.error(`could not record failure of ${job.data.jobId}: ${(e as Error).message}`));
    }
  });
  return worker;
}

import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { AppConfig } from '../config/env';
import { ArcgisError } from '../errors/arcgis-error';
import { bullConnection } from './job-queue.service';
import { DEFAULT_JOB_OPTIONS, JobName, QueueName } from './job.types';
import { JobsRepository } from './jobs.repository';

/** An error that retrying cannot fix: the job is failed at once with this message. */
export class PermanentJobError extends Error {}

/**
 * Runs one queue's jobs with the rules every job shares: the job row is the source of truth (a finished or
 * cancelled row means the delivery is dropped), bad input fails at once, other faults are retried with backoff
 * and the row is failed with a message after the last attempt. A killed worker's job is re-delivered by BullMQ
 * once its lock expires (stalled-job check), and the handler runs again from the start.
 */
export type JobHandlers = Partial<Record<JobName, (job: Job<{ jobId: string }>) => Promise<void>>>;

export function startQueueWorker(queue: QueueName, config: AppConfig, jobs: JobsRepository, handlers: JobHandlers, logger: Logger): Worker {
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
        const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
        const permanent = e instanceof PermanentJobError || e instanceof ArcgisError;
        if (permanent || job.attemptsMade + 1 >= attempts) {
          const message = permanent ? (e as Error).message : `Failed after ${job.attemptsMade + 1} attempts: ${(e as Error).message}`;
          await jobs.finish(job.data.jobId, 'failed', message);
          logger.warn(`job ${job.data.jobId} failed: ${message}`);
          throw permanent ? new UnrecoverableError(message) : e;
        }
        logger.warn(`job ${job.data.jobId} attempt ${job.attemptsMade + 1} failed, will retry: ${(e as Error).message}`);
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
  // finish() only touches unfinished rows, so this is harmless after the handler already recorded the failure.
  worker.on('failed', (job, err) => {
    if (!job) return;
    const attempts = job.opts.attempts ?? DEFAULT_JOB_OPTIONS.attempts;
    if (err instanceof UnrecoverableError || job.attemptsMade >= attempts || /stalled/i.test(err.message)) {
      jobs.finish(job.data.jobId, 'failed', err.message || 'The job failed.').catch((e) => logger.error(`could not record failure of ${job.data.jobId}: ${(e as Error).message}`));
    }
  });
  return worker;
}

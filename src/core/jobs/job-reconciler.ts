import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JobQueueService } from './job-queue.service';
import { JOB_QUEUE, JOB_TYPE, JobItem, JobName } from './job.types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

const EVERY_MS = 15_000;
const NAME_OF_TYPE = Object.fromEntries(Object.entries(JOB_TYPE).map(([name, type]) => [type, name as JobName]));

/**
 * Redis may lose queued work (a restart without persistence, a flush); Postgres does not. Every few seconds the
 * worker re-enqueues unfinished job rows whose BullMQ job is gone. Enqueueing is idempotent (job id = row id),
 * so several workers doing this at once is harmless.
 */
@Injectable()
export class JobReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobReconciler.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueueService,
    private readonly service: JobsService,
  ) {}

  onApplicationBootstrap(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), EVERY_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let requeued = 0;
    try {
      for (const row of await this.jobs.unfinished()) {
        const name = NAME_OF_TYPE[row.type];
        const existing = await this.queue.queue(JOB_QUEUE[name]).getJob(row.id);
        if (existing) {
          // BullMQ gave up on it (or finished it) without the row hearing: close the row so the item does not hang.
          const state = await existing.getState();
          if (state === 'failed' || state === 'completed') {
            await this.service.end(row.id, 'failed', existing.failedReason || 'The job ended without recording a result.');
          }
          continue;
        }
        await this.queue.enqueue({ name, data: { jobId: row.id } } as JobItem);
        requeued++;
      }
      if (requeued) this.logger.warn(`re-enqueued ${requeued} job(s) that Redis no longer had`);
    } catch (e) {
      this.logger.warn(`reconcile skipped: ${(e as Error).message}`);
    } finally {
      this.running = false;
    }
    return requeued;
  }
}

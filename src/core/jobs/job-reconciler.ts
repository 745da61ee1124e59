import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JOB_KINDS, JobKind, kindOf } from './job-contract';
import { JobQueueService } from './job-queue.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

const EVERY_MS = 15_000;

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
    @Inject(JOB_KINDS) private readonly kinds: readonly JobKind[],
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
        const kind = kindOf(this.kinds, row.type);
        if (!kind) {
          await this.service.end(row.id, 'failed', `This deployment cannot run '${row.type}' jobs.`);
          continue;
        }
        const existing = await this.queue.queue(kind.queue).getJob(row.id);
        if (existing) {
          // BullMQ gave up on it (or finished it) without the row hearing: close the row so the item does not hang.
          const state = await existing.getState();
          if (state === 'failed' || state === 'completed') {
            await this.service.end(row.id, 'failed', existing.failedReason || 'The job ended without recording a result.');
          }
          continue;
        }
        await this.queue.enqueue(kind, row.id);
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

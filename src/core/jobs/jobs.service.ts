import { Injectable, Logger } from '@nestjs/common';
import { ArcgisError } from '../errors/arcgis-error';
import { JobQueueService } from './job-queue.service';
import { JOB_QUEUE, JobItem, JobName, JobType } from './job.types';
import { JobsRepository } from './jobs.repository';

const QUEUE_OF_TYPE: Record<JobType, JobName> = { export: JobName.ExportItem, publish: JobName.PublishItem };

/** What the API does with jobs beyond enqueueing: cancel them when their item goes. */
@Injectable()
export class JobsService {
  private readonly logger = new Logger(JobsService.name);

  constructor(
    private readonly repo: JobsRepository,
    private readonly queue: JobQueueService,
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
      await this.repo.finish(item.data.jobId, 'failed', `The ${what} could not be queued; try again.`);
      throw new ArcgisError(500, `Unable to queue the ${what}.`, ['The job queue is unavailable; try again shortly.']);
    }
  }

  /** Marks the item's unfinished jobs cancelled and drops waiting ones from Redis; a running one stops at its next check. */
  async cancelForItem(itemId: string): Promise<number> {
    const active = await this.repo.activeForItem(itemId);
    for (const job of active) {
      await this.repo.finish(job.id, 'cancelled', 'Cancelled: the item was deleted.');
      await this.queue.remove(JOB_QUEUE[QUEUE_OF_TYPE[job.type]], job.id);
    }
    return active.length;
  }
}

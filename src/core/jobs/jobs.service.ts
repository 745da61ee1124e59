import { Injectable } from '@nestjs/common';
import { JobQueueService } from './job-queue.service';
import { JOB_QUEUE, JobName, JobType } from './job.types';
import { JobsRepository } from './jobs.repository';

const QUEUE_OF_TYPE: Record<JobType, JobName> = { export: JobName.ExportItem, publish: JobName.PublishItem };

/** What the API does with jobs beyond enqueueing: cancel them when their item goes. */
@Injectable()
export class JobsService {
  constructor(
    private readonly repo: JobsRepository,
    private readonly queue: JobQueueService,
  ) {}

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

import { Global, Module } from '@nestjs/common';
import { JobQueueService } from './job-queue.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { WorkerRegistry } from './worker-heartbeat';

/** Job rows and the producer side of the queues; both processes load it, only the worker adds processors. */
@Global()
@Module({
  providers: [JobQueueService, JobsRepository, JobsService, WorkerRegistry],
  exports: [JobQueueService, JobsRepository, JobsService, WorkerRegistry],
})
export class JobsModule {}

import { Global, Module } from '@nestjs/common';
import { JobQueueService } from './job-queue.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

/** Job rows and the producer side of the queues; both processes load it, only the worker adds processors. */
@Global()
@Module({ providers: [JobQueueService, JobsRepository, JobsService], exports: [JobQueueService, JobsRepository, JobsService] })
export class JobsModule {}

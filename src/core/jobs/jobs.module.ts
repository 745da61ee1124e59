import { Global, Module } from '@nestjs/common';
import { JobQueueService } from './job-queue.service';
import { JobsRepository } from './jobs.repository';

@Global()
@Module({ providers: [JobQueueService, JobsRepository], exports: [JobQueueService, JobsRepository] })
export class JobsModule {}

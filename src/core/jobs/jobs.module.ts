import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { JOB_KINDS, JobKind } from './job-contract';
import { JobQueueService } from './job-queue.service';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { RESULT_ITEMS, ResultItems } from './result-items';
import { WorkerRegistry } from './worker-heartbeat';

/**
 * Job rows and the producer side of the queues, for both processes; the kinds come from the composition root.
 * Only the worker adds JobRunner (and the handlers it resolves).
 */
@Global()
@Module({})
export class JobsModule {
  static forRoot(kinds: readonly JobKind[], resultItems: Type<ResultItems>): DynamicModule {
    return {
      module: JobsModule,
      providers: [
        { provide: JOB_KINDS, useValue: kinds },
        { provide: RESULT_ITEMS, useClass: resultItems },
        JobQueueService,
        JobsRepository,
        JobsService,
        WorkerRegistry,
      ],
      exports: [JOB_KINDS, RESULT_ITEMS, JobQueueService, JobsRepository, JobsService, WorkerRegistry],
    };
  }
}

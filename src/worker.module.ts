import { DynamicModule, Module } from '@nestjs/common';
import { CoreModule } from './core/core.module';
import { AppConfig } from './core/config/env';
import { JobReconciler } from './core/jobs/job-reconciler';
import { WorkerHeartbeat } from './core/jobs/worker-heartbeat';
import { entities } from './entities';
import { ExportWorkerModule } from './export/worker/export-worker.module';
import { PublishWorkerModule } from './features/publish/worker/publish-worker.module';
import { migrations } from './migrations';

/** The worker process: the shared core and the queue processors. No HTTP, no controllers. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config, { entities, migrations }), ExportWorkerModule, PublishWorkerModule],
      providers: [JobReconciler, WorkerHeartbeat],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { AttachmentExportRepository } from './attachments';
import { ContentRepository } from './content/content.repository';
import { CoreModule } from './core/core.module';
import { AppConfig } from './core/config/env';
import { JobReconciler } from './core/jobs/job-reconciler';
import { JobRunner } from './core/jobs/job-runner';
import { WorkerHeartbeat } from './core/jobs/worker-heartbeat';
import { entities } from './entities';
import { ExportAccess } from './export/export-access';
import { IdentityRepository } from './identity/identity.repository';
import { UserCallers } from './identity/user-callers';
import { jobKinds } from './jobs';
import { LayersRepository } from './layers/layers.repository';
import { migrations } from './migrations';
import { WebhookDispatcher, WebhooksRepository } from './webhooks';

/**
 * The worker process: the shared core, the runner that consumes every kind's queue, and the kinds' handlers with
 * what they read and write. No HTTP, no controllers.
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config, { entities, migrations, jobs: jobKinds, resultItems: ContentRepository })],
      // Each kind's handler comes from its declaration, so listing a kind in jobs.ts is all the worker needs of it.
      providers: [
        JobRunner,
        JobReconciler,
        WorkerHeartbeat,
        ...jobKinds.map((k) => k.handler()),
        LayersRepository,
        ContentRepository,
        // What a job needs to ask the request's access rules again when it runs.
        IdentityRepository,
        UserCallers,
        ExportAccess,
        AttachmentExportRepository,
        // Webhooks: the outbox's dispatcher and what deliveries read and write.
        WebhookDispatcher,
        WebhooksRepository,
      ],
    };
  }
}

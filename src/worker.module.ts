import { DynamicModule, Module } from '@nestjs/common';
import { CoreModule } from './core/core.module';
import { AppConfig } from './core/config/env';

/** The worker process: the shared core and, from the export pipeline on, the queue processors. No HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: WorkerModule, imports: [CoreModule.forRoot(config)] };
  }
}

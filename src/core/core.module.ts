import { DynamicModule, Module, Type } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { AppConfig } from './config/env';
import { DatabaseSchema } from './database/data-source-options';
import { DatabaseModule } from './database/database.module';
import { JobKind } from './jobs/job-contract';
import { JobsModule } from './jobs/jobs.module';
import { ResultItems } from './jobs/result-items';
import { LoggingModule } from './logging/logging.module';
import { RedisModule } from './redis/redis.module';
import { StorageModule } from './storage/storage.module';

/**
 * What the composition roots (app and worker modules) hand to core, which imports no feature: the schema, the
 * job kinds, and the items table's owner for what jobs write to their result items.
 */
export interface Composition extends DatabaseSchema {
  jobs: readonly JobKind[];
  resultItems: Type<ResultItems>;
}

/** What both processes share: validated config, JSON logs, Postgres, Redis, item files and job rows. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, c: Composition): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        DatabaseModule.forRoot(c),
        RedisModule,
        StorageModule,
        JobsModule.forRoot(c.jobs, c.resultItems),
      ],
      exports: [ConfigModule],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { AppConfig } from './config/env';
import { DatabaseSchema } from './database/data-source-options';
import { DatabaseModule } from './database/database.module';
import { JobsModule } from './jobs/jobs.module';
import { LoggingModule } from './logging/logging.module';
import { RedisModule } from './redis/redis.module';

/** What both processes share: validated config, JSON logs, Postgres, Redis and job rows. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, schema: DatabaseSchema): DynamicModule {
    return {
      module: CoreModule,
      imports: [ConfigModule.forRoot(config), LoggingModule, DatabaseModule.forRoot(schema), RedisModule, JobsModule],
      exports: [ConfigModule],
    };
  }
}

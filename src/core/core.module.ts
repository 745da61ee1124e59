import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { AppConfig } from './config/env';
import { DatabaseModule } from './database/database.module';
import { LoggingModule } from './logging/logging.module';
import { RedisModule } from './redis/redis.module';

/** What both processes share: validated config, JSON logs, Postgres and Redis. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [ConfigModule.forRoot(config), LoggingModule, DatabaseModule, RedisModule],
      exports: [ConfigModule],
    };
  }
}

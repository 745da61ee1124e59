import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourceOptions } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { requestPoolOptions } from './request-pools.module';

/** Name of the DataSource feature reads and edits use (inject with `@InjectDataSource(FEATURE_DB)`). */
export const FEATURE_DB = 'features';

/**
 * Feature queries and edits run caller-shaped SQL over tables of any size, so they get a pool of their own:
 * a flood of slow (or anonymous) queries fills this pool, never the main one that token checks, sharing and
 * health use. Every statement on it is cut by Postgres after `query.timeoutMs` (a session setting sent at connect,
 * so it costs no round trip), and a request waits at most as long for a free connection. The worker process
 * never loads this module: exports and publishes read through GDAL and the main pool, without this timeout.
 */
export function featureDataSourceOptions(config: AppConfig): DataSourceOptions {
  // No JIT: PostGIS functions carry high cost estimates, so a page of a few thousand features crossed jit_above_cost
  // and spent longer compiling a query than running it.
  return requestPoolOptions(config, FEATURE_DB, config.query.poolSize, config.query.timeoutMs, ' -c jit=off');
}

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      name: FEATURE_DB,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ ...featureDataSourceOptions(config), retryAttempts: 3, retryDelay: 1000 }),
    }),
  ],
})
export class FeatureDatabaseModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourceOptions } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';

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
  return {
    type: 'postgres',
    name: FEATURE_DB,
    url: config.databaseUrl,
    entities: [],
    synchronize: false,
    migrationsRun: false,
    extra: {
      max: config.query.poolSize,
      connectionTimeoutMillis: config.query.timeoutMs,
      // No JIT: PostGIS functions carry high cost estimates, so a page of a few thousand features crossed
      // jit_above_cost and spent 50 ms or more compiling a query that runs in a few. No parallel workers: they are
      // backends outside the pool, so one request's scan took three cores and the per-client shares meant nothing.
      options: `-c statement_timeout=${config.query.timeoutMs} -c jit=off -c max_parallel_workers_per_gather=0`,
    },
  };
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

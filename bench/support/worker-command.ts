import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { AppConfig } from '../../src/core/config/env';
import { startCommand } from '../../test/support/start-command';

/** The worker as `npm run start:worker` starts it, and the API as `npm run start:api` does. */
export const WORKER = startCommand('start:worker');
export const API = startCommand('start:api');

/** The worker's environment for a benchmark: BENCH_ARENAS, and the malloc thresholds set in the shell, win. */
export function benchWorkerEnv(): Record<string, string> {
  const env = { ...WORKER.env };
  if (process.env.BENCH_ARENAS) env.MALLOC_ARENA_MAX = process.env.BENCH_ARENAS;
  for (const k of ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']) if (process.env[k]) env[k] = process.env[k]!;
  return env;
}

/** A worker process on the bench app's database, data folder and queues, as `npm run start:worker` runs it. */
export function spawnBenchWorker(config: AppConfig, flags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...WORKER.flags, ...flags, WORKER.script], {
    cwd: path.resolve(__dirname, '../..'),
    env: {
      ...process.env,
      ...benchWorkerEnv(),
      DATABASE_URL: config.databaseUrl,
      DATA_DIR: config.dataDir,
      QUEUE_PREFIX: config.queuePrefix,
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
}

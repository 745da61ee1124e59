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

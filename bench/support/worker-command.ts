import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The worker as `npm run start:worker` starts it (package.json): the environment the script sets, node's flags and
 * the script, read from there so that the benchmarks run the worker users run.
 */
function startWorker(): { env: Record<string, string>; flags: string[]; script: string } {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  const command = pkg.scripts['start:worker'];
  const m = /^((?:[A-Z_]+=\S+ )*)node ((?:--\S+ )*)(\S+)$/.exec(command);
  if (!m) throw new Error(`start:worker is not "NAME=value … node --flag … script": ${command}`);
  const env = Object.fromEntries(
    m[1]
      .split(' ')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
  return { env, flags: m[2].split(' ').filter(Boolean), script: m[3] };
}

export const WORKER = startWorker();

/** The worker's environment for a benchmark: BENCH_ARENAS, and the malloc thresholds set in the shell, win. */
export function benchWorkerEnv(): Record<string, string> {
  const env = { ...WORKER.env };
  if (process.env.BENCH_ARENAS) env.MALLOC_ARENA_MAX = process.env.BENCH_ARENAS;
  for (const k of ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']) if (process.env[k]) env[k] = process.env[k]!;
  return env;
}

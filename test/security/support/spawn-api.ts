import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ADMIN } from '../../support/app';
import { startCommand } from '../../support/start-command';

export interface ApiProcess {
  pid: number;
  root: string;
  base: string;
  dataDir: string;
  /** Everything the process wrote to stdout (pino's JSON lines) so far. */
  stdout(): string;
  /** Resident set size in bytes, from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

/** Starts src/bootstrap's API in a child process against the run's database; env overrides the configuration. */
export async function spawnApi(env: Record<string, string> = {}): Promise<ApiProcess> {
  const root = path.resolve(__dirname, '../../..');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'arcgis-sec-'));
  const child = spawn(
    process.execPath,
    [...startCommand('start:api').flags, '-r', 'ts-node/register/transpile-only', 'test/security/support/api-child.ts'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        TS_NODE_PROJECT: 'tsconfig.json',
        DATABASE_URL: process.env.TEST_DATABASE_URL,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        QUEUE_PREFIX: process.env.TEST_QUEUE_PREFIX ?? 'arcgis-test',
        DATA_DIR: dataDir,
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const until = Date.now() + 60_000;
  let port: string | undefined;
  while (!(port = /API_PORT=(\d+)/.exec(err)?.[1])) {
    if (Date.now() > until || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`API did not start:\n${err.slice(-4000)}\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const rootUrl = `http://127.0.0.1:${port}${env.CONTEXT_PATH ?? ''}`;
  return {
    pid: child.pid!,
    root: rootUrl,
    base: `${rootUrl}/sharing/rest`,
    dataDir,
    stdout: () => out,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

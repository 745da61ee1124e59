import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { AppConfig } from '../../src/core/config/env';
import { WorkerModule } from '../../src/worker.module';
import { storageEnv } from './app';

/** A worker in this process, sharing the API's config (same database, DATA_DIR and queue prefix). */
export async function startWorker(config: AppConfig): Promise<INestApplicationContext> {
  const ctx = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger: false });
  await ctx.init();
  return ctx;
}

/** A worker as its own OS process (for kill tests), configured like the API under test. */
export function spawnWorker(config: AppConfig, extraEnv: Record<string, string> = {}) {
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/worker.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      TS_NODE_PROJECT: 'tsconfig.json',
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      DATA_DIR: config.dataDir,
      QUEUE_PREFIX: config.queuePrefix,
      JOB_LOCK_MS: String(config.jobLockMs),
      LOG_LEVEL: 'info',
      // A hard-killed worker counts as alive until its heartbeat runs out; short, so later suites see no ghost.
      WORKER_HEARTBEAT_TTL_S: '3',
      ...storageEnv(config),
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (text: string | RegExp, ms = 30000) => {
    const until = Date.now() + ms;
    while (!(typeof text === 'string' ? out.includes(text) : text.test(out))) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${text}; worker output:\n${out.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, exited, waitFor, output: () => out };
}

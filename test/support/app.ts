import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { createApi } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/core/config/env';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  db: DataSource;
  /** http://127.0.0.1:<port><CONTEXT_PATH> */
  root: string;
  /** root + /sharing/rest */
  base: string;
  close(): Promise<void>;
}

/** The real API on a random local port, against the run's fresh database and the local Redis. */
export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'arcgis-test-'));
  const config = loadConfig({
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    DATA_DIR: dataDir,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    QUEUE_PREFIX: process.env.TEST_QUEUE_PREFIX ?? 'arcgis-test',
    // Every suite of a run signs in from 127.0.0.1 and some fail on purpose by the dozen (bad-input fuzzes
    // generateToken), far beyond what one real address does; test/security/tokens.spec.ts runs the default.
    SIGNIN_ADDRESS_FREE_FAILURES: '100000',
    ...env,
  });
  const app = await createApi(config, { quiet: !process.env.TEST_LOG_LEVEL });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const root = `http://127.0.0.1:${port}${config.contextPath}`;
  return {
    app,
    config,
    db: app.get(DataSource),
    root,
    base: `${root}/sharing/rest`,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { createApi } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/core/config/env';
import { holdS3, onS3, s3Env } from './s3';

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

/**
 * The real API on a random local port, against the run's fresh database and the local Redis; item files in a
 * fresh DATA_DIR, or with TEST_STORAGE=s3 in a fresh bucket of the tests' s3rver (test/support/s3.ts).
 */
export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'arcgis-test-'));
  const releaseS3 = onS3() ? await holdS3() : undefined;
  const storage = releaseS3 ? await s3Env() : {};
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
    // Suites that test the sweep call it; a timer of its own would only race them.
    STORAGE_SWEEP_INTERVAL_S: '0',
    ...storage,
    ...env,
  });
  return listenApi(config, async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await releaseS3?.();
  });
}

/** The API of `config` on a random local port; `close` then runs `after` (scratch files, databases). Bench runs use it too. */
export async function listenApi(config: AppConfig, after: () => Promise<void>): Promise<TestApp> {
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
      // A client's keep-alive sockets (undici keeps them for the server's 65 s hint) must not hold the suite open.
      (app.getHttpServer() as Server).closeAllConnections();
      await app.close();
      await after();
    },
  };
}

/** The storage variables of a config, for processes spawned with their own environment. */
export function storageEnv(config: AppConfig): Record<string, string> {
  const s3 = config.storage.s3;
  if (!s3) return {};
  return {
    STORAGE_URL: `s3://${s3.bucket}/${s3.prefix}`,
    ...(s3.endpoint ? { S3_ENDPOINT: s3.endpoint } : {}),
    S3_REGION: s3.region,
    S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
    ...(s3.credentials ? { AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey } : {}),
    S3_PRESIGNED_DOWNLOAD_S: String(s3.presignedDownloadS),
    STORAGE_SWEEP_INTERVAL_S: String(config.storage.sweepIntervalS),
  };
}

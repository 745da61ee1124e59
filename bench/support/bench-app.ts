import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadConfig } from '../../src/core/config/env';
import { listenApi, TestApp } from '../../test/support/app';
import { createMigratedDatabase, dropDatabase } from '../../test/support/database';

import { API } from './worker-command';

export { createHostedService } from '../../test/support/client';

/**
 * The API runs in the benchmark's own process, so that process runs with the API's node flags (`npm run start:api`):
 * started without them, it runs itself again with them, so that every benchmark measures the API users run.
 */
function runWithApiFlags(): void {
  const missing = API.flags.filter((f) => !process.execArgv.includes(f));
  if (missing.length === 0) return;
  const child = spawnSync(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}
runWithApiFlags();

export const BENCH_ADMIN = { username: 'bench_admin', password: 'bench-password-1' };

export interface BenchApp extends TestApp {
  /** The bench administrator's token. */
  token: string;
}

/** POSTs a form and returns the JSON, throwing on an ArcGIS error envelope. */
export async function form(url: string, params: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams({ f: 'json', ...params }) });
  const body = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (body.error) throw new Error(`${url}: ${JSON.stringify(body.error)}`);
  return body;
}

/** A scratch database, migrated; `drop` removes it. */
export async function createBenchDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const server = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/arcgis';
  const { name, url } = await createMigratedDatabase(server, 'arcgis_bench');
  return { name, url, drop: () => dropDatabase(server, name) };
}

/** A scratch database (dropped on close), migrated, with the API on a random local port and an admin token. */
export async function startBenchApp(env: Record<string, string> = {}): Promise<BenchApp> {
  const { name: dbName, url: benchUrl, drop } = await createBenchDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: benchUrl,
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    LOG_LEVEL: 'silent',
    DATA_DIR: `/tmp/${dbName}`,
    QUEUE_PREFIX: dbName,
    ...env,
  });
  const api = await listenApi(config, async () => {
    await drop();
    await rm(config.dataDir, { recursive: true, force: true }); // uploads and export files of the scratch run
  });
  const { token } = await form(`${api.base}/generateToken`, { ...BENCH_ADMIN, client: 'requestip' });
  return { ...api, token };
}

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

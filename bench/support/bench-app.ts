import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createApi } from '../../src/bootstrap';
import { AppConfig, loadConfig } from '../../src/core/config/env';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';

export const BENCH_ADMIN = { username: 'bench_admin', password: 'bench-password-1' };

export interface BenchApp {
  app: INestApplication;
  config: AppConfig;
  db: DataSource;
  root: string;
  base: string;
  token: string;
  close(): Promise<void>;
}

/** POSTs a form and returns the JSON, throwing on an ArcGIS error envelope. */
export async function form(url: string, params: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams({ f: 'json', ...params }) });
  const body = (await res.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  if (body.error) throw new Error(`${url}: ${JSON.stringify(body.error)}`);
  return body;
}

/** A hosted feature service made as clients make one: createService, then addToDefinition with `layers`. */
export async function createHostedService(
  base: string,
  owner: { username: string; token: string },
  createParameters: Record<string, unknown>,
  layers: object[],
): Promise<{ itemId: string; serviceurl: string }> {
  const created = await form(`${base}/content/users/${owner.username}/createService`, {
    token: owner.token,
    outputType: 'featureService',
    createParameters: JSON.stringify(createParameters),
  });
  await form(`${created.serviceurl.replace('/rest/services/', '/rest/admin/services/')}/addToDefinition`, {
    token: owner.token,
    addToDefinition: JSON.stringify({ layers }),
  });
  return created;
}

/** A scratch database, migrated; `drop` removes it. */
export async function createBenchDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const server = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/arcgis';
  const name = `arcgis_bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const url = server.replace(/\/[^/]*$/, `/${name}`);
  const pg = new Client({ connectionString: server.replace(/\/[^/]*$/, '/postgres') });
  await pg.connect();
  await pg.query(`CREATE DATABASE ${name}`);
  const ds = new DataSource(dataSourceOptions(url, { entities, migrations }));
  await ds.initialize();
  await ds.runMigrations();
  await ds.destroy();
  return {
    name,
    url,
    async drop() {
      await pg.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await pg.end();
    },
  };
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
  const app = await createApi(config, { quiet: true });
  await app.listen(0, '127.0.0.1');
  const root = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const base = `${root}/sharing/rest`;
  const { token } = await form(`${base}/generateToken`, { ...BENCH_ADMIN, client: 'requestip' });
  return {
    app,
    config,
    db: app.get(DataSource),
    root,
    base,
    token,
    async close() {
      await app.close();
      await drop();
      await rm(config.dataDir, { recursive: true, force: true }); // uploads and export files of the scratch run
    },
  };
}

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

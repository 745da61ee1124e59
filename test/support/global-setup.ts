import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';

/** A fresh database per run, migrated exactly as `npm run migrate` does. */
export default async function globalSetup(): Promise<void> {
  const server = process.env.TEST_PG_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const name = `arcgis_test_${Date.now()}_${process.pid}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  process.env.TEST_DATABASE_URL = url.toString();
  process.env.TEST_DATABASE_NAME = name;
  // Queues of this run only: a worker of another run (or a dev server) on the same Redis never sees them.
  process.env.TEST_QUEUE_PREFIX = name;
  const ds = new DataSource(dataSourceOptions(url.toString(), { entities, migrations }));
  await ds.initialize();
  await ds.runMigrations();
  await ds.destroy();
}

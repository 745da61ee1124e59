import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';

/** The URL of database `name` on the server of `url`. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh database `<prefix>_<time>_<n>` on `server` (any database URL there), migrated exactly as `npm run migrate` does. */
export async function createMigratedDatabase(server: string, prefix: string): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${Date.now()}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new Client({ connectionString: databaseUrl(server, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = databaseUrl(server, name);
  const ds = new DataSource(dataSourceOptions(url, { entities, migrations }));
  await ds.initialize();
  await ds.runMigrations();
  await ds.destroy();
  return { name, url };
}

export async function dropDatabase(server: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl(server, 'postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

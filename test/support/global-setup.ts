import { createMigratedDatabase } from './database';

/** A fresh database per run, migrated exactly as `npm run migrate` does. */
export default async function globalSetup(): Promise<void> {
  const server = process.env.TEST_PG_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const { name, url } = await createMigratedDatabase(server, 'arcgis_test');
  process.env.TEST_DATABASE_URL = url;
  process.env.TEST_DATABASE_NAME = name;
  // Queues of this run only: a worker of another run (or a dev server) on the same Redis never sees them.
  process.env.TEST_QUEUE_PREFIX = name;
}

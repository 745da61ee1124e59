import { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { Client } from 'pg';
import { connectionOf } from '../../core/database/gdal-pg';
import { directReadSocket } from './copy/copy-rows';
import { socketMaker } from './copy/pg-wire';

/**
 * How many sessions (and writers) an export runs at once on a large layer: one backend per core of this machine,
 * within reason (the database may well have more cores than this machine).
 */
export const PARALLEL_SESSIONS = Math.min(4, Math.max(1, availableParallelism()));

/**
 * A node-postgres session for an export, on the job's database (given as GDAL's "PG:..." string) and named like
 * the export's GDAL sessions, so that cancelling ends it too (terminateSessions). UTC, as exportConnection has GDAL
 * read dates: the writers print the zone as "+00" / "Z".
 */
export async function openSession(pg: string, applicationName: string, settings: string[] = []): Promise<Client> {
  const client = new Client({
    ...connectionOf({ pg }).client,
    application_name: applicationName.replace(/[^A-Za-z0-9_-]/g, ''),
    options: '-c TimeZone=UTC',
    // node-postgres passes its resolved settings: a TLS session (PGSSLMODE) needs Node's own socket.
    stream: socketMaker((tls) => (tls ? new Socket() : directReadSocket())),
  });
  // A session ended from outside (a cancel) reports through the query it breaks; the client's own event must not
  // become an unhandled error.
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const s of settings) await client.query(s);
  } catch (e) {
    await client.end().catch(() => undefined);
    throw e;
  }
  return client;
}

/** Closes a session whatever state it is in (a broken COPY, a terminated backend). */
export async function closeSession(client: Client | undefined): Promise<void> {
  await client?.end().catch(() => undefined);
}

/** Runs `use` on a session of its own (openSession), closed when it is done or fails. */
export async function withSession<T>(pg: string, applicationName: string, use: (session: Client) => Promise<T>): Promise<T> {
  const session = await openSession(pg, applicationName);
  try {
    return await use(session);
  } finally {
    await closeSession(session);
  }
}

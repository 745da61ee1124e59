/**
 * The binary COPY reader (copy-rows.ts) against PostgreSQL at full size: a large COPY to a file byte for byte,
 * errors mid-COPY, a row of many megabytes, and the ways a COPY is stopped from outside (an abort, a consumer that
 * gives up, pg_terminate_backend), each of which must end in a rejection and leave nothing hanging. Every test runs
 * on node-postgres's own socket and on directReadSocket (one buffer for all reads), as the export's sessions use.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { copyQueryToFile, copyRows, directReadSocket, OUT_CHUNK } from '../../src/export/writer/copy/copy-rows';

let dir: string;
let admin: Client;
const opened: Client[] = [];

const SOCKETS = [
  ['node-postgres socket', false],
  ['direct reads', true],
] as const;
let direct = false;

/** A session as the export opens one: its own 'error' listener, so that a connection killed from outside is no crash. */
async function session(): Promise<{ client: Client; errors: Error[] }> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL, ...(direct ? { stream: directReadSocket } : {}) });
  const errors: Error[] = [];
  client.on('error', (e) => errors.push(e));
  await client.connect();
  opened.push(client);
  return { client, errors };
}

const pid = async (c: Client) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
const one = async (c: Client) => (await c.query<{ one: number }>('SELECT 1 AS one')).rows[0].one;
/** The client's 'end' (events.once would reject on the 'error' the client emits first). */
const endOf = (c: Client) => new Promise<void>((resolve) => c.once('end', resolve));
/** Rows enough to run for minutes: the tests stop them long before. */
const ENDLESS = `SELECT repeat('x', 100) || generate_series(1, 500000000) || E'\\n'`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'copy-rows-'));
  admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.end().catch(() => undefined)));
  await admin.end();
  await rm(dir, { recursive: true, force: true });
});

describe.each(SOCKETS)('on a %s', (_, directReads) => {
  beforeAll(() => {
    direct = directReads;
  });

  it('reads a large plain query through the same socket unharmed (node-postgres gets its own copy of each read)', async () => {
    const { client } = await session();
    const { rows } = await client.query<{ v: string }>(
      `SELECT string_agg(md5(i::text), '' ORDER BY i) AS v FROM generate_series(1, 100000) i`,
    );
    let expected = '';
    for (let i = 1; i <= 100_000; i++) expected += createHash('md5').update(String(i)).digest('hex');
    expect(rows[0].v === expected).toBe(true);
    const reader = copyRows(client, `SELECT 'a'`);
    for await (const piece of reader as AsyncIterable<Buffer>) expect(piece.toString()).toBe('a');
    expect(reader.directReads).toBe(directReads);
  });

  it('writes 200,000 rows to the file byte for byte, reporting progress along the way', async () => {
    const { client } = await session();
    const path = join(dir, 'rows.csv');
    const progress: number[] = [];
    const rows = await copyQueryToFile(
      client,
      `SELECT i || ',' || md5(i::text) || E',"Städte ""✓"""\\n' FROM generate_series(1, 200000) i`,
      path,
      { onRows: (n) => progress.push(n) },
    );
    expect(rows).toBe(200_000);
    let expected = '';
    for (let i = 1; i <= 200_000; i++) expected += `${i},${createHash('md5').update(String(i)).digest('hex')},"Städte ""✓"""\n`;
    expect((await readFile(path)).equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    for (let k = 1; k < progress.length; k++) expect(progress[k] - progress[k - 1]).toBeGreaterThanOrEqual(50_000);
  });

  it('cuts skipFirst bytes from the first row only, appending to what the file holds', async () => {
    const { client } = await session();
    const path = join(dir, 'features.json');
    await writeFile(path, '[');
    const rows = await copyQueryToFile(client, `SELECT E',\\n{"id": ' || i || '}' FROM generate_series(1, 3) i`, path, {
      append: true,
      skipFirst: 2,
    });
    expect(rows).toBe(3);
    expect(await readFile(path, 'utf8')).toBe('[{"id": 1},\n{"id": 2},\n{"id": 3}');
  });

  it("rejects with PostgreSQL's error on row 150,000, the session usable after", async () => {
    const { client } = await session();
    const query = `SELECT 'row ' || i || CASE WHEN i = 150000 THEN (1 / (i - 150000))::text ELSE '' END || E'\\n' FROM generate_series(1, 200000) i`;
    await expect(copyQueryToFile(client, query, join(dir, 'failed.csv'))).rejects.toThrow('division by zero');
    expect(await one(client)).toBe(1);
    // and ready for the next COPY
    expect(await copyQueryToFile(client, `SELECT 'a' FROM generate_series(1, 5)`, join(dir, 'after.csv'))).toBe(5);
    expect(await readFile(join(dir, 'after.csv'), 'utf8')).toBe('aaaaa');
  });

  it('passes a row of 25 MB on in pieces of at most OUT_CHUNK', async () => {
    const { client } = await session();
    const reader = copyRows(client, `SELECT 'a' UNION ALL SELECT repeat('0123456789', 2500000) UNION ALL SELECT 'z'`);
    let length = 0;
    let largest = 0;
    let text = '';
    for await (const piece of reader as AsyncIterable<Buffer>) {
      largest = Math.max(largest, piece.length);
      // A sample at each piece's start and end keeps the check cheap.
      text += piece.subarray(0, 3).toString() + '|' + piece.subarray(-3).toString() + '|';
      length += piece.length;
    }
    expect(reader.rows).toBe(3);
    expect(length).toBe(25_000_002);
    expect(largest).toBeLessThanOrEqual(OUT_CHUNK);
    expect(text.startsWith('a01|')).toBe(true);
    expect(text.endsWith('89z|')).toBe(true);
  });

  it('stops on an abort: the promise rejects at once, the backend is cancelled and the session usable', async () => {
    const { client } = await session();
    const controller = new AbortController();
    let reported = 0;
    const started = Date.now();
    const copy = copyQueryToFile(client, ENDLESS, join(dir, 'aborted.csv'), {
      signal: controller.signal,
      every: 10_000,
      onRows: (n) => {
        reported = n;
        controller.abort();
      },
    });
    await expect(copy).rejects.toThrow(/aborted/);
    expect(reported).toBeGreaterThanOrEqual(10_000);
    expect(await one(client)).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops when the consumer gives up while the socket waits for it, and on an abort before the COPY started', async () => {
    const { client } = await session();
    const reader = copyRows(client, ENDLESS);
    // Nobody reads: the reader stops reading the socket once its buffer is full, and the backend waits.
    await once(reader, 'readable');
    await new Promise((r) => setTimeout(r, 200));
    reader.destroy();
    expect(await one(client)).toBe(1);

    // Queued behind another query, then aborted before its turn: never sent.
    const busy = client.query('SELECT pg_sleep(0.2)');
    await expect(copyQueryToFile(client, ENDLESS, join(dir, 'never.csv'), { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
    await busy;
    expect(await one(client)).toBe(1);
  });

  it('rejects when the backend is terminated from another session, mid-COPY or while the consumer has gone', async () => {
    const first = await session();
    const target = await pid(first.client);
    const ended = endOf(first.client);
    const copy = copyQueryToFile(first.client, ENDLESS, join(dir, 'terminated.csv'), {
      every: 10_000,
      onRows: () => void admin.query('SELECT pg_terminate_backend($1)', [target]),
    });
    // PostgreSQL's FATAL message, or only the connection's end when the backend was blocked sending rows (the
    // socket's buffers full) as it was terminated: which one depends on how far behind the reader is.
    await expect(copy).rejects.toThrow(/terminating connection due to administrator command|Connection terminated unexpectedly/);
    await ended;
    expect(first.errors.map((e) => e.message)).toEqual(['Connection terminated unexpectedly']);

    // Terminated while the reader waits for its consumer, which then gives up: the session still ends.
    const second = await session();
    const secondPid = await pid(second.client);
    const reader = copyRows(second.client, ENDLESS);
    await once(reader, 'readable');
    const secondEnded = endOf(second.client);
    await admin.query('SELECT pg_terminate_backend($1)', [secondPid]);
    reader.destroy();
    await secondEnded;
  });
});

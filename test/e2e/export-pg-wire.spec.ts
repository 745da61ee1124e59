/**
 * What the export's COPY reader relies on in node-postgres (src/export/writer/copy/pg-wire.ts), checked on real
 * connections to the real PostgreSQL: an upgrade of pg that changes any of it fails here, by name.
 */
import { Socket } from 'node:net';
import { Client, type Connection, type Submittable } from 'pg';
import { copyRows, directReadSocket } from '../../src/export/writer/copy/copy-rows';
import { cancelKeyOf, sendQuery, socketMaker, wireOf } from '../../src/export/writer/copy/pg-wire';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed version, for the test's name
const PG_VERSION: string = require('pg/package.json').version;
const url = () => process.env.TEST_DATABASE_URL!;
const opened: Client[] = [];

async function connect(config: ConstructorParameters<typeof Client>[0] = {}): Promise<Client> {
  const client = new Client({ connectionString: url(), ...(typeof config === 'object' ? config : {}) });
  client.on('error', () => undefined);
  await client.connect();
  opened.push(client);
  return client;
}
const connectionOf = (client: Client) => (client as unknown as { connection: Connection }).connection;

/** A Submittable that records how node-postgres drives it. */
class Probe implements Submittable {
  readonly calls: string[] = [];
  readonly done: Promise<void>;
  private finish!: () => void;
  constructor(private readonly text: string) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }
  submit(connection: Connection): void {
    const wire = wireOf(connection);
    this.calls.push(wire instanceof Error ? wire.message : 'submit');
    sendQuery(connection, this.text);
  }
  handleCommandComplete(msg: { text?: string }): void {
    this.calls.push(`complete ${msg.text}`);
  }
  handleError(err: Error): void {
    this.calls.push(`error ${err.message}`);
    this.finish();
  }
  handleReadyForQuery(): void {
    this.calls.push('ready');
    this.finish();
  }
}

afterAll(async () => {
  await Promise.all(opened.map((c) => c.end().catch(() => undefined)));
});

describe(`node-postgres ${PG_VERSION} as the COPY reader uses it`, () => {
  it("makes each connection's socket with the stream option, telling it whether TLS is asked for", async () => {
    const made: boolean[] = [];
    let socket: Socket | undefined;
    const client = await connect({
      stream: socketMaker((tls) => {
        made.push(tls);
        return (socket = directReadSocket());
      }),
    });
    expect(made).toEqual([false]);
    expect(connectionOf(client).stream).toBe(socket);
  });

  it("gives a connected client's socket exactly one data listener, node-postgres's parser", async () => {
    const client = await connect();
    const connection = connectionOf(client);
    expect(connection.stream).toBeInstanceOf(Socket);
    const wire = wireOf(connection);
    expect(wire).not.toBeInstanceOf(Error);
    expect((wire as Exclude<typeof wire, Error>).socket).toBe(connection.stream);
    expect(typeof connection.query).toBe('function');
  });

  it("holds the backend's cancel key and where it connected", async () => {
    const client = await connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const key = cancelKeyOf(client);
    expect(key).not.toBeNull();
    expect(key!.processID).toBe(rows[0].pid);
    expect(Number.isInteger(key!.secretKey)).toBe(true);
    const u = new URL(url());
    expect(key!.host).toBe(u.hostname);
    expect(key!.port).toBe(Number(u.port || 5432));
  });

  it("drives a Submittable: submit with the connection, then the command's completion and ready, or its error alone", async () => {
    const client = await connect();
    const ok = client.query(new Probe('DO $$ BEGIN END $$'));
    await ok.done;
    expect(ok.calls).toEqual(['submit', 'complete DO', 'ready']);
    const failed = client.query(new Probe('SELECT 1/0'));
    await failed.done;
    expect(failed.calls).toEqual(['submit', 'error division by zero']);
    expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it.each([
    ['node-postgres socket', false],
    ['socket with direct reads', true],
  ])('yields the COPY bytes through the adapter on a %s, the client usable after', async (_, direct) => {
    const client = await connect(direct ? { stream: socketMaker(() => directReadSocket()) } : {});
    const rows = copyRows(client, `SELECT x::text || ',' FROM generate_series(1, 5) x`);
    const pieces: Buffer[] = [];
    for await (const piece of rows as AsyncIterable<Buffer>) pieces.push(Buffer.from(piece));
    expect(Buffer.concat(pieces).toString()).toBe('1,2,3,4,5,');
    expect(rows.rows).toBe(5);
    expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });
});

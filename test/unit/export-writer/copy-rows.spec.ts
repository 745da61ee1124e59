import { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { Client } from 'pg';
import { csvHeader, csvQuote } from '../../../src/export/writer/copy/copy-format';
import { copyRows, CopyRowsOptions, givePiece, OUT_CHUNK, takePiece } from '../../../src/export/writer/copy/copy-rows';
import { field, pointLayer, polygonLayer } from './fixtures';

/**
 * A real connection to PostgreSQL whose incoming bytes can be held back and handed to node-postgres cut at chosen
 * offsets (and edited first, for what PostgreSQL never sends): the reader then sees a real COPY response split
 * anywhere, the rest of the session untouched.
 */
class Rechunker extends Duplex {
  private readonly socket = new Socket();
  private plan?: { length: number; cuts: number[]; edit?: (response: Buffer) => Buffer };
  private held: Buffer[] = [];
  received = 0;

  constructor() {
    super();
    this.socket.on('connect', () => this.emit('connect'));
    this.socket.on('data', (b: Buffer) => this.receive(b));
    this.socket.on('end', () => this.push(null));
    this.socket.on('error', (e) => this.destroy(e));
    this.socket.on('close', () => this.destroy());
  }

  connect(port: number, host: string): this {
    this.socket.connect(port, host);
    return this;
  }

  setNoDelay(on: boolean): this {
    this.socket.setNoDelay(on);
    return this;
  }

  setKeepAlive(on: boolean, delay: number): this {
    this.socket.setKeepAlive(on, delay);
    return this;
  }

  /** The next `length` bytes from the server are handed on in pieces, cut before each offset of `cuts`. */
  hold(length: number, cuts: number[], edit?: (response: Buffer) => Buffer): void {
    this.plan = { length, cuts, edit };
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.socket.write(chunk, done);
  }

  override _final(done: () => void): void {
    this.socket.end(done);
  }

  override _destroy(err: Error | null, done: (e: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  private receive(b: Buffer): void {
    this.received += b.length;
    const plan = this.plan;
    if (!plan) return void this.push(b);
    this.held.push(b);
    const all = Buffer.concat(this.held);
    if (all.length < plan.length) return;
    this.plan = undefined;
    this.held = [];
    const data = plan.edit ? plan.edit(all.subarray(0, plan.length)) : all.subarray(0, plan.length);
    let from = 0;
    for (const cut of [...plan.cuts, data.length]) {
      if (cut <= from) continue;
      this.push(data.subarray(from, cut));
      from = cut;
    }
    if (all.length > plan.length) this.push(all.subarray(plan.length));
  }
}

/** The backend's messages in a response: code, start and end (the code byte included). */
function messages(response: Buffer): { code: string; start: number; end: number }[] {
  const out = [];
  for (let p = 0; p < response.length;) {
    const end = p + 1 + response.readUInt32BE(p + 1);
    out.push({ code: String.fromCharCode(response[p]), start: p, end });
    p = end;
  }
  return out;
}

/** The response with the message at `start` replaced by the given code and body. */
function replaceMessage(response: Buffer, m: { start: number; end: number }, code: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(code, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([response.subarray(0, m.start), head, body, response.subarray(m.end)]);
}

const firstCopyData = (response: Buffer) => messages(response).find((m) => m.code === 'd')!;

/** Deterministic cut points: pieces of 1 to `max` bytes. */
function randomCuts(length: number, max: number, seed: number): number[] {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s;
  };
  const cuts = [];
  for (let p = 1 + (next() % max); p < length; p += 1 + (next() % max)) cuts.push(p);
  return cuts;
}

/** Rows with NULLs, empty values, multi-byte characters, backslashes and tabs, and a notice raised mid-COPY. */
const MAIN = `SELECT CASE WHEN i % 7 = 3 THEN NULL WHEN i % 7 = 5 THEN '' ELSE E',\\n{"i": ' || i || E', "s": "Städte ✓ \\\\ \\t"}' END
  || CASE WHEN i = 10 THEN pg_temp.noted(i) ELSE '' END FROM generate_series(1, 40) i`;
const FAILING = `SELECT 'row ' || i || CASE WHEN i = 25 THEN (1 / (i - 25))::text ELSE '' END || E'\\n' FROM generate_series(1, 40) i`;

describe('CopyRowsReader on a real COPY response cut anywhere', () => {
  let client: Client;
  let wire: Rechunker;
  const notices: string[] = [];
  /** Each query's response length, from a first run not cut. */
  const lengths = new Map<string, number>();
  let expected: Buffer;

  const run = async (query: string, o: CopyRowsOptions = {}) => {
    const reader = copyRows(client, query, o);
    const bytes = await buffer(reader);
    return { bytes, rows: reader.rows };
  };
  /** Runs the query with its response held and cut (the first call measures it, uncut). */
  const cutRun = async (query: string, cuts: number[], o: CopyRowsOptions = {}, edit?: (r: Buffer) => Buffer) => {
    const length = lengths.get(query);
    if (length === undefined) {
      // Measured once the client is idle again: a failing COPY rejects at PostgreSQL's error, and the ReadyForQuery
      // after it may come in a later read (a length short by it left every later cut run waiting for 6 bytes).
      const idle = new Promise((resolve) => client.once('drain', resolve));
      const before = wire.received;
      try {
        return await run(query, o);
      } finally {
        await idle;
        lengths.set(query, wire.received - before);
      }
    }
    wire.hold(length, cuts, edit);
    return run(query, o);
  };
  const usable = async () => expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

  beforeAll(async () => {
    client = new Client({ connectionString: process.env.TEST_DATABASE_URL, stream: () => (wire = new Rechunker()) });
    client.on('notice', (n) => notices.push(n.message ?? ''));
    await client.connect();
    await client.query(
      `CREATE FUNCTION pg_temp.noted(i int) RETURNS text LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'row %', i; RETURN ''; END $$`,
    );
    const { rows } = await client.query<{ v: string | null }>(MAIN.replace(/ FROM generate_series/, ' AS v FROM generate_series'));
    expected = Buffer.from(rows.map((r) => r.v ?? '').join(''), 'utf8');
    notices.length = 0;
    await cutRun(MAIN, []);
    await expect(cutRun(FAILING, [])).rejects.toThrow('division by zero');
  });

  afterAll(async () => {
    await client.end();
  });

  it('reads the same rows whatever the two pieces the response comes in, and passes the notice on', async () => {
    const length = lengths.get(MAIN)!;
    expect(length).toBeGreaterThan(expected.length + 40 * 11);
    notices.length = 0;
    for (let cut = 1; cut < length; cut++) {
      const { bytes, rows } = await cutRun(MAIN, [cut], { restMs: 0 });
      if (!bytes.equals(expected) || rows !== 40) throw new Error(`cut at ${cut}: ${rows} rows, ${JSON.stringify(bytes.toString())}`);
    }
    expect(notices).toEqual(Array(length - 1).fill('row 10'));
  });

  it('reads the same in many small pieces, resting after short reads or not', async () => {
    const length = lengths.get(MAIN)!;
    for (let seed = 1; seed <= 200; seed++) {
      const cuts = randomCuts(length, seed % 2 ? 9 : 60, seed);
      const { bytes } = await cutRun(MAIN, cuts, { restMs: seed % 20 === 0 ? 4 : 0 });
      if (!bytes.equals(expected)) throw new Error(`seed ${seed}: ${JSON.stringify(bytes.toString())}`);
    }
  });

  it('gives the first row up to skipFirst bytes, and only the first', async () => {
    const length = lengths.get(MAIN)!;
    for (const cut of [1, 7, 20, 30, 40, length - 1]) {
      expect((await cutRun(MAIN, [cut], { skipFirst: 2, restMs: 0 })).bytes.toString()).toBe(expected.subarray(2).toString());
    }
    // A first row shorter than skipFirst is given up whole; the second keeps its bytes.
    expect((await run(`SELECT v FROM (VALUES (1, 'a'), (2, 'bcd')) t(i, v) ORDER BY i`, { skipFirst: 2 })).bytes.toString()).toBe('bcd');
  });

  it("rejects with PostgreSQL's error wherever the response is cut, the client usable after", async () => {
    const length = lengths.get(FAILING)!;
    expect(length).toBeGreaterThan(300);
    for (let cut = 1; cut < length; cut += 1) {
      await expect(cutRun(FAILING, [cut], { restMs: 0 })).rejects.toThrow('division by zero');
      await usable();
    }
  });

  it('skips a header extension', async () => {
    const withExtension = (response: Buffer) => {
      const m = firstCopyData(response);
      const body = Buffer.from(response.subarray(m.start + 5, m.end));
      body.writeUInt32BE(5, 15);
      return replaceMessage(response, m, 'd', Buffer.concat([body.subarray(0, 19), Buffer.from('12345'), body.subarray(19)]));
    };
    for (const cut of [3, 20, 27, 30]) {
      expect((await cutRun(MAIN, [cut], { restMs: 0 }, withExtension)).bytes).toEqual(expected);
    }
  });

  it('counts NULL and empty rows, and reads a COPY of no rows', async () => {
    expect((await run(`SELECT NULL::text FROM generate_series(1, 3) UNION ALL SELECT ''`)).rows).toBe(4);
    expect(await run(`SELECT 'x' WHERE false`)).toEqual({ bytes: Buffer.alloc(0), rows: 0 });
  });

  it('refuses what is not one column of binary COPY, or cut short, and the client stays usable', async () => {
    await expect(run(`SELECT 'a'::text, 'b'::text FROM generate_series(1, 3)`)).rejects.toThrow(/expected one column per row, got 2/);
    await usable();
    const notBinary = (response: Buffer) => {
      const copy = Buffer.from(response);
      copy[firstCopyData(response).start + 5] = 'X'.charCodeAt(0);
      return copy;
    };
    await expect(cutRun(MAIN, [], {}, notBinary)).rejects.toThrow(/not a binary COPY stream/);
    await usable();
    const noTrailer = (response: Buffer) => {
      const trailer = messages(response)
        .filter((m) => m.code === 'd')
        .pop()!;
      return Buffer.concat([response.subarray(0, trailer.start), response.subarray(trailer.end)]);
    };
    await expect(cutRun(MAIN, [], {}, noTrailer)).rejects.toThrow(/ended in the middle of a row/);
    await usable();
    const rowLost = (response: Buffer) => {
      const row = messages(response).filter((m) => m.code === 'd')[5];
      return Buffer.concat([response.subarray(0, row.start), response.subarray(row.end)]);
    };
    await expect(cutRun(MAIN, [], {}, rowLost)).rejects.toThrow(/read 39 rows of the 40 PostgreSQL sent/);
    await usable();
  });
});

describe('CSV header and quoting (GDAL STRING_QUOTING=IF_NEEDED)', () => {
  it('quotes only what holds a quote, comma, semicolon, tab or line break', () => {
    expect(['plain', ' lead', 'a,b', 'a;b', 'a"b', 'a\tb', 'a\nb', ''].map(csvQuote)).toEqual([
      'plain',
      ' lead',
      '"a,b"',
      '"a;b"',
      '"a""b"',
      '"a\tb"',
      '"a\nb"',
      '',
    ]);
  });

  it('puts x/y last for points, WKT first for polygons, nothing for tables', () => {
    expect(csvHeader(pointLayer({ xColumnName: 'Lon', yColumnName: 'Lat' }))).toBe('OBJECTID,Name,Pop,Founded,Lon,Lat\n');
    expect(csvHeader(polygonLayer())).toBe('WKT,OBJECTID,Label\n');
    expect(csvHeader(pointLayer({ includeGeometry: false, fields: [field('A;B', 'esriFieldTypeString')] }))).toBe('"A;B"\n');
  });
});

describe('the pieces readers fill', () => {
  it('are reused once given back, whole and only once', () => {
    const a = takePiece();
    const b = takePiece();
    expect(a.length).toBe(OUT_CHUNK);
    expect(b.buffer).not.toBe(a.buffer);
    givePiece(a.subarray(0, 10)); // a reader's last piece, cut short: its whole buffer comes back
    givePiece(a); // given twice: kept once
    givePiece(b.subarray(1)); // not a piece from its start
    const again = [takePiece(), takePiece()];
    expect(again[0].buffer).toBe(a.buffer);
    expect(again[0].length).toBe(OUT_CHUNK);
    expect(again[1].buffer).not.toBe(a.buffer);
    expect(again[1].buffer).not.toBe(b.buffer);
  });
});

/**
 * Page statements are prepared per connection (src/feature-server/query/prepared-statements.ts): a connection holds at
 * most so many, the least recently used deallocated, and node-postgres's record of them stays what the server holds.
 */
import { Pool, PoolClient } from 'pg';
import { PreparedStatements } from '../../src/feature-server/query/prepared-statements';

const url = process.env.TEST_DATABASE_URL!;

describe('prepared page statements', () => {
  let pool: Pool;
  beforeEach(() => (pool = new Pool({ connectionString: url, max: 1 })));
  afterEach(() => pool.end());

  /** What the pool's one connection holds: on the server, and in node-postgres's record. */
  async function held() {
    const c: PoolClient = await pool.connect();
    try {
      const server = (await c.query(`SELECT name FROM pg_prepared_statements`)).rows.map((r) => r.name).sort();
      const recorded = Object.keys((c as unknown as { connection: { parsedStatements: object } }).connection.parsedStatements).sort();
      return { server, recorded };
    } finally {
      c.release();
    }
  }

  it('keep at most so many per connection, the least recently used going, and run any text again', async () => {
    const prepared = new PreparedStatements(() => pool, 5);
    const text = (k: number) => `SELECT $1::int + ${k} AS v`;
    for (let round = 0; round < 2; round++)
      for (let k = 0; k < 20; k++) expect(await prepared.query<{ v: number }>(text(k), [round])).toEqual([{ v: k + round }]);
    let now = await held();
    expect(now.server).toHaveLength(5);
    expect(now.recorded).toEqual(now.server);
    // The most recent stays while others come and go.
    for (let k = 20; k < 30; k++) {
      await prepared.query(text(19), [0]);
      await prepared.query(text(k), [0]);
    }
    now = await held();
    expect(now.server).toHaveLength(5);
    expect(now.recorded).toEqual(now.server);
    expect(await prepared.query(text(19), [1])).toEqual([{ v: 20 }]);
    expect((await held()).server).toEqual(now.server);
  });

  it('keep at most so many characters of text per connection, and run longer texts unnamed', async () => {
    const prepared = new PreparedStatements(() => pool, 100, 400);
    const text = (k: number) => `SELECT ${k} AS v, '${'x'.repeat(60)}' AS pad`;
    for (let k = 0; k < 10; k++) await prepared.query(text(k), []);
    // Each text is 80-odd characters: four fit in 400.
    expect((await held()).server).toHaveLength(4);
    await prepared.query(`SELECT '${'y'.repeat(120)}' AS pad`, []);
    const now = await held();
    expect(now.server).toHaveLength(4);
    expect(now.recorded).toEqual(now.server);
  });

  it('count a statement that failed to parse as nothing held, and one that failed running as held', async () => {
    const prepared = new PreparedStatements(() => pool, 2);
    await expect(prepared.query(`SELECT nope FROM nowhere`, [])).rejects.toMatchObject({ code: '42P01' });
    expect((await held()).server).toHaveLength(0);
    await expect(prepared.query(`SELECT 1 / $1::int AS v`, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await held()).server).toHaveLength(1);
    // The connection is still the pool's one, and the statement runs on it.
    expect(await prepared.query(`SELECT 1 / $1::int AS v`, [1])).toEqual([{ v: 1 }]);
    for (const k of [1, 2, 3]) await prepared.query(`SELECT ${k} AS v`, []);
    const now = await held();
    expect(now.server).toHaveLength(2);
    expect(now.recorded).toEqual(now.server);
  });

  it('prepare a statement again when its tables changed the type of its result (a layer made again)', async () => {
    const prepared = new PreparedStatements(() => pool, 5);
    const table = `prepared_retype_${process.pid}`;
    const admin = await pool.connect();
    try {
      await admin.query(`CREATE TABLE ${table} (pop integer)`);
      await admin.query(`INSERT INTO ${table} VALUES (7)`);
    } finally {
      admin.release();
    }
    try {
      const text = `SELECT pop AS a0 FROM ${table}`;
      expect(await prepared.query(text, [])).toEqual([{ a0: 7 }]);
      const c = await pool.connect();
      try {
        await c.query(`DROP TABLE ${table}`);
        await c.query(`CREATE TABLE ${table} (pop text)`);
        await c.query(`INSERT INTO ${table} VALUES ('seven')`);
      } finally {
        c.release();
      }
      expect(await prepared.query(text, [])).toEqual([{ a0: 'seven' }]);
      expect(await prepared.query(text, [])).toEqual([{ a0: 'seven' }]);
      const now = await held();
      expect(now.recorded).toEqual(now.server);
    } finally {
      const c = await pool.connect();
      await c.query(`DROP TABLE IF EXISTS ${table}`).finally(() => c.release());
    }
  });
});

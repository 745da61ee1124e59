/**
 * Pages in object id order start where the caller's previous page of the same selection ended (resume points,
 * src/feature-server/query/resume-points.ts), but only while the layer's data version, read in the page statement's
 * own snapshot, says no edit was committed since. Every page here is compared with the rows PostgreSQL selects for it
 * with a plain OFFSET, and with the reply of a clause that reads the clock (which never resumes); what each page
 * statement read is counted from EXPLAIN ANALYZE of the very statement the page ran.
 */
import { Client } from 'pg';
import { FeatureDataRepository } from '../../src/feature-server/feature-data.repository';
import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { FeatureDataVersions1732320000000 } from '../../src/migrations/1732320000000-FeatureDataVersions';
import { createHostedService, get, post } from '../support/client';
import { withApp } from '../support/harness';

const PAGE = 50;
const ROWS = 500;
/** The same rows as 1=1, through a clause that reads the clock: the reference reply, from a full OFFSET skip. */
const CLOCK = "1=1 AND CURRENT_DATE > DATE '2000-01-01'";

interface Ran {
  sql: string;
  values: unknown[];
  result: { resumed?: boolean | null; version?: string | null }[];
}

describe('query pages resume where the previous page ended', () => {
  const t = withApp({ users: { pub: 'org_publisher', reader: 'org_user' } });
  const { pub, reader } = t.users;
  let ran: Ran[] = [];

  beforeAll(async () => {
    // The page statements as they ran, and what they answered.
    const repo = t.app.get(FeatureDataRepository) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const run = repo.pageQuery.bind(repo);
    jest.spyOn(repo, 'pageQuery').mockImplementation(async (sql, values) => {
      const result = (await run(sql, values)) as Ran['result'];
      ran.push({ sql: sql as string, values: [...(values as unknown[])], result });
      return result;
    });
  });

  /**
   * A layer of ROWS points with even object ids 2…2·ROWS, whose identity hands out 1 next, so an added feature
   * lands before every remembered point.
   */
  async function newLayer() {
    const layer = { name: 'L', geometryType: 'esriGeometryPoint', fields: [{ name: 'n', type: 'esriFieldTypeInteger' }] };
    const { itemId, serviceurl } = await createHostedService(t.base, pub, [layer]);
    const [{ schema }] = await t.db.query(`SELECT schema_name AS schema FROM feature_services WHERE item_id = $1`, [itemId]);
    const table = `"${schema}"."l0"`;
    await t.db.query(
      `INSERT INTO ${table} (objectid, n, shape) SELECT 2 * g, g, ST_SetSRID(ST_MakePoint(g % 90, g % 45), 4326) FROM generate_series(1, $1) g`,
      [ROWS],
    );
    await t.db.query(`SELECT setval(pg_get_serial_sequence($1, 'objectid'), 1, false)`, [table]);
    await t.db.query(`VACUUM ANALYZE ${table}`);
    return { itemId, url: `${serviceurl}/0`, table };
  }

  type Layer = Awaited<ReturnType<typeof newLayer>>;

  /** One page's reply text and what its statement did. */
  async function page(l: Layer, offset: number, opts: { desc?: boolean; where?: string; token?: string; f?: string } = {}) {
    ran = [];
    const r = await get(
      l.url,
      'query',
      {
        f: opts.f ?? 'json',
        where: opts.where ?? '1=1',
        outFields: '*',
        orderByFields: `OBJECTID${opts.desc ? ' DESC' : ''}`,
        resultOffset: String(offset),
        resultRecordCount: String(PAGE),
      },
      opts.token === undefined ? pub.token : opts.token || undefined,
    );
    expect(ran.length).toBeLessThanOrEqual(1);
    return { text: r.text, body: r.body, ran: ran[0] };
  }

  /** The page's object ids as PostgreSQL selects them with OFFSET. */
  async function expected(l: Layer, offset: number, desc = false): Promise<number[]> {
    const rows = await t.db.query(`SELECT objectid FROM ${l.table} ORDER BY objectid ${desc ? 'DESC' : ''} OFFSET $1 LIMIT $2`, [
      offset,
      PAGE,
    ]);
    return rows.map((r: { objectid: number }) => r.objectid);
  }

  const ids = (body: { features: { attributes: { OBJECTID: number } }[] }) => body.features.map((f) => f.attributes.OBJECTID);

  /** Rows the statement read from the layer's table: every scan node on it, over all its loops. */
  async function layerRowsRead(r: Ran): Promise<number> {
    const [{ 'QUERY PLAN': plan }] = await t.db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${r.sql}`, r.values);
    let n = 0;
    const walk = (node: Record<string, unknown>) => {
      if (node['Relation Name'] === 'l0') n += (node['Actual Rows'] as number) * (node['Actual Loops'] as number);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(plan[0].Plan);
    return n;
  }

  /** A page that must be right: the rows SQL selects, the clock clause's reply byte for byte. */
  async function checked(l: Layer, offset: number, opts: { desc?: boolean; token?: string } = {}) {
    const p = await page(l, offset, opts);
    expect(ids(p.body)).toEqual(await expected(l, offset, opts.desc));
    expect(p.text).toBe((await page(l, offset, { ...opts, where: CLOCK })).text);
    return p;
  }

  it.each([false, true])('paging a whole layer (DESC: %s) gives the pages OFFSET gives, each skipping nothing', async (desc) => {
    const l = await newLayer();
    for (const f of ['json', 'geojson']) {
      for (let offset = 0; offset <= ROWS; offset += PAGE) {
        const p = await page(l, offset, { desc, f });
        const reference = await page(l, offset, { desc, f, where: CLOCK });
        expect(p.text).toBe(reference.text);
        const got = f === 'json' ? ids(p.body) : p.body.features.map((x: { id: number }) => x.id);
        expect(got).toEqual(await expected(l, offset, desc));
        // Pages of either format share their points: the selection is the same.
        expect(p.ran.result[0].resumed).toBe(offset > 0);
        expect(reference.ran.result[0].resumed).toBeUndefined();
        if (offset > 0 && offset < ROWS) {
          // The page's rows and the one past it, plus the resume point itself: no skipped row.
          expect(await layerRowsRead(p.ran)).toBeLessThanOrEqual(PAGE + 2);
          expect(await layerRowsRead(reference.ran)).toBeGreaterThan(offset + PAGE);
        }
      }
    }
  });

  /** One f=pbf page: the reply's bytes, the object ids it holds, and what its statement did. */
  async function pbfPage(l: Layer, offset: number, opts: { desc?: boolean; where?: string } = {}) {
    ran = [];
    const qs = new URLSearchParams({
      f: 'pbf',
      where: opts.where ?? '1=1',
      outFields: 'OBJECTID',
      orderByFields: `OBJECTID${opts.desc ? ' DESC' : ''}`,
      resultOffset: String(offset),
      resultRecordCount: String(PAGE),
      token: pub.token,
    });
    const bytes = Buffer.from(await (await fetch(`${l.url}/query?${qs}`)).arrayBuffer());
    const result = (decodeFeatureCollection(new Uint8Array(bytes)) as any).queryResult.featureResult; // eslint-disable-line @typescript-eslint/no-explicit-any
    const oids = (result.features ?? []).map((f: { attributes: { sintValue?: number; uintValue?: number }[] }) => {
      const v = f.attributes[0];
      return Number(v.sintValue ?? v.uintValue);
    });
    // One statement, empty pages too: the page's own row says whether the guard held.
    expect(ran.length).toBe(1);
    return { bytes, oids, ran: ran[ran.length - 1] as unknown as { sql: string; values: unknown[]; result: { resumed?: boolean }[] } };
  }

  it.each([false, true])('f=pbf pages (DESC: %s) resume too, and an edit between two pages is seen', async (desc) => {
    const l = await newLayer();
    for (let offset = 0; offset <= ROWS; offset += PAGE) {
      const p = await pbfPage(l, offset, { desc });
      const reference = await pbfPage(l, offset, { desc, where: CLOCK });
      expect(p.bytes.equals(reference.bytes)).toBe(true);
      expect(p.oids).toEqual(await expected(l, offset, desc));
      if (offset > 0 && offset < ROWS) {
        expect(p.ran.result[0].resumed).toBe(true);
        expect(await layerRowsRead(p.ran as unknown as Ran)).toBeLessThanOrEqual(PAGE + 2);
        expect(await layerRowsRead(reference.ran as unknown as Ran)).toBeGreaterThan(offset + PAGE);
      }
    }
    // A row removed before the remembered start of the page at 2·PAGE: that page now starts one row later.
    await pbfPage(l, PAGE, { desc });
    await t.db.query(`DELETE FROM ${l.table} WHERE objectid = $1`, [desc ? 2 * ROWS : 2]);
    const after = await pbfPage(l, 2 * PAGE, { desc });
    expect(after.ran.result[0].resumed).toBe(false);
    expect(after.oids).toEqual(await expected(l, 2 * PAGE, desc));
  });

  it('a page away from every remembered point skips only from the nearest one before it', async () => {
    const l = await newLayer();
    await checked(l, 0);
    const p = await checked(l, PAGE + 120);
    expect(p.ran.result[0].resumed).toBe(true);
    expect(await layerRowsRead(p.ran)).toBeLessThanOrEqual(120 + PAGE + 2);
    // Before the first remembered point there is nothing to resume from.
    await checked(l, 2 * PAGE + 120);
    const back = await checked(l, 10);
    expect(back.ran.result[0].resumed).toBe(false);
  });

  const edits: [string, (l: Layer) => Promise<unknown>][] = [
    [
      'an added feature (applyEdits)',
      (l) => post(l.url, 'applyEdits', { adds: JSON.stringify([{ attributes: { n: 0 }, geometry: { x: 0, y: 0 } }]) }, pub.token),
    ],
    ['a deleted feature (applyEdits)', (l) => post(l.url, 'applyEdits', { deletes: '4' }, pub.token)],
    ['deleted features (deleteFeatures where)', (l) => post(l.url, 'deleteFeatures', { where: 'OBJECTID < 20' }, pub.token)],
    [
      'an updated feature (applyEdits)',
      (l) => post(l.url, 'applyEdits', { updates: JSON.stringify([{ attributes: { OBJECTID: 4, n: 7 } }]) }, pub.token),
    ],
    ['an INSERT', (l) => t.db.query(`INSERT INTO ${l.table} (objectid, n) VALUES (3, 0)`)],
    ['a DELETE', (l) => t.db.query(`DELETE FROM ${l.table} WHERE objectid = 4`)],
    ['an UPDATE of an object id', (l) => t.db.query(`UPDATE ${l.table} SET objectid = 1 WHERE objectid = 400`)],
    ['a TRUNCATE', (l) => t.db.query(`TRUNCATE ${l.table}`)],
    [
      'a TRUNCATE and a reload in one transaction',
      (l) =>
        t.db.transaction(async (m) => {
          await m.query(`TRUNCATE ${l.table}`);
          await m.query(`INSERT INTO ${l.table} (objectid, n) SELECT 2 * g + 1, g FROM generate_series(1, $1) g`, [ROWS]);
        }),
    ],
  ];

  it.each(edits)('%s between two pages makes the next page start in the right place', async (_, edit) => {
    const l = await newLayer();
    await checked(l, 0);
    await checked(l, 0, { desc: true });
    await edit(l);
    const next = await checked(l, PAGE);
    expect(next.ran.result[0].resumed).toBe(false);
    expect((await checked(l, PAGE, { desc: true })).ran.result[0].resumed).toBe(false);
    // The page that found the edit remembered where the one after it starts, under the new version.
    expect((await checked(l, 2 * PAGE)).ran.result[0].resumed).toBe((await expected(l, 2 * PAGE)).length > 0);
  });

  it('a table whose edits are not counted (trigger disabled, as a data-only restore leaves it) never resumes', async () => {
    const l = await newLayer();
    await t.db.query(`ALTER TABLE ${l.table} DISABLE TRIGGER feature_data_version`);
    await checked(l, 0);
    const first = await checked(l, PAGE);
    // No version, so no point was remembered, and none is used.
    expect(first.ran.result[0].version).toBeNull();
    expect(first.ran.result[0].resumed).toBeNull();
    await t.db.query(`DELETE FROM ${l.table} WHERE objectid = 4`);
    expect((await checked(l, 2 * PAGE)).ran.result[0].resumed).toBeNull();
    await t.db.query(`ALTER TABLE ${l.table} ENABLE TRIGGER feature_data_version`);
  });

  it('an edit from a session whose search_path leaves out the versions table is counted, not refused', async () => {
    const l = await newLayer();
    await checked(l, 0);
    const c = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    try {
      await c.query(`SET search_path = pg_catalog`);
      await c.query(`DELETE FROM ${l.table} WHERE objectid = 4`);
    } finally {
      await c.end();
    }
    const next = await checked(l, PAGE);
    expect(next.ran.result[0].resumed).toBe(false);
  });

  it('an edit rolled back leaves the points usable; one in progress is not seen until it commits', async () => {
    const l = await newLayer();
    await checked(l, 0);
    await t.db
      .transaction(async (m) => {
        await m.query(`DELETE FROM ${l.table} WHERE objectid = 4`);
        await m.query(`INSERT INTO ${l.table} (objectid, n) VALUES (3, 0)`);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect((await checked(l, PAGE)).ran.result[0].resumed).toBe(true);
    const editor = new Client({ connectionString: t.config.databaseUrl });
    await editor.connect();
    try {
      await editor.query('BEGIN');
      await editor.query(`DELETE FROM ${l.table} WHERE objectid IN (2, 4, 6)`);
      expect((await checked(l, 2 * PAGE)).ran.result[0].resumed).toBe(true);
      await editor.query('COMMIT');
    } finally {
      await editor.end();
    }
    const after = await checked(l, 3 * PAGE);
    expect(after.ran.result[0].resumed).toBe(false);
  });

  it('a clause that reads the clock never resumes: its rows change with no edit', async () => {
    const l = await newLayer();
    for (const offset of [0, PAGE, 2 * PAGE]) {
      const p = await page(l, offset, { where: "OBJECTID > 0 AND CURRENT_TIMESTAMP > TIMESTAMP '2000-01-01 00:00:00'" });
      expect(ids(p.body)).toEqual(await expected(l, offset));
      expect(p.ran.sql).not.toContain('"#version"');
      expect(await layerRowsRead(p.ran)).toBeGreaterThan(offset + PAGE);
    }
  });

  it("a caller never resumes from another caller's pages, nor sees a layer it may not through them", async () => {
    const l = await newLayer();
    for (const offset of [0, PAGE, 2 * PAGE]) await checked(l, offset);
    const hidden = await page(l, 3 * PAGE, { token: reader.token });
    expect(hidden.body.error.message).toBe('Service does not exist or is inaccessible.');
    expect(hidden.ran).toBeUndefined();
    await post(t.base, `content/users/${pub.username}/items/${l.itemId}/share`, { everyone: 'true' }, pub.token);
    for (const token of [reader.token, '']) {
      const first = await checked(l, 3 * PAGE, { token });
      expect(first.ran.result[0].resumed).toBe(false);
      expect(await layerRowsRead(first.ran)).toBeGreaterThan(3 * PAGE);
      expect((await checked(l, 4 * PAGE, { token })).ran.result[0].resumed).toBe(true);
    }
  });

  it('the version counts committed edits without editors of two layers ever waiting for each other', async () => {
    const [a, b] = [await newLayer(), await newLayer()];
    const version = async (l: Layer) => {
      const [schema, table] = l.table.split('.').map((x) => x.replace(/"/g, ''));
      const [{ v }] = await t.db.query(
        `SELECT coalesce(sum(n), 0)::int AS v FROM feature_data_versions WHERE schema_name = $1 AND table_name = $2`,
        [schema, table],
      );
      return v as number;
    };
    const [va, vb] = [await version(a), await version(b)];
    const editors = [new Client({ connectionString: t.config.databaseUrl }), new Client({ connectionString: t.config.databaseUrl })];
    await Promise.all(editors.map((c) => c.connect()));
    try {
      // A wait would fail the statement after 1 s instead of hanging; opposite orders would deadlock on row locks.
      for (const c of editors) await c.query(`BEGIN; SET LOCAL lock_timeout = '1s'`);
      const [one, two] = editors;
      await one.query(`INSERT INTO ${a.table} (objectid, n) VALUES (1, 0)`);
      await two.query(`INSERT INTO ${b.table} (objectid, n) VALUES (1, 0)`);
      await two.query(`UPDATE ${a.table} SET n = 1 WHERE objectid = 2`);
      await one.query(`UPDATE ${b.table} SET n = 1 WHERE objectid = 2`);
      await one.query(`DELETE FROM ${a.table} WHERE objectid = 6`);
      await two.query('COMMIT');
      await one.query('COMMIT');
      // Under REPEATABLE READ, where locking a row deleted since the snapshot would be a serialization failure.
      await one.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await one.query(`SELECT 1 FROM ${a.table} LIMIT 1`);
      await two.query(`INSERT INTO ${a.table} (objectid, n) VALUES (3, 0)`);
      await one.query(`INSERT INTO ${a.table} (objectid, n) VALUES (5, 0)`);
      await one.query('COMMIT');
    } finally {
      await Promise.all(editors.map((c) => c.end()));
    }
    expect(await version(a)).toBe(va + 5);
    expect(await version(b)).toBe(vb + 2);
    // Each edit folds what it can into its own row, so a layer keeps about one row however often it is edited.
    const [{ rows }] = await t.db.query(`SELECT count(*)::int AS rows FROM feature_data_versions WHERE schema_name = $1`, [
      a.table.split('.')[0].replace(/"/g, ''),
    ]);
    // The REPEATABLE READ edit's own row, and the one the others folded into.
    expect(rows).toBeLessThanOrEqual(2);
  });

  it('the migration gives the trigger to the tables of layers made before it, and takes it away again', async () => {
    const l = await newLayer();
    const migration = new FeatureDataVersions1732320000000();
    const q = t.db.createQueryRunner();
    // Only the triggers, in a transaction rolled back: the function and the versions table serve the other suites.
    await q.startTransaction();
    try {
      const triggers = async () =>
        (
          await q.query(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = 'feature_data_version'`, [
            l.table,
          ])
        )[0].n;
      const version = async () =>
        (
          await q.query(`SELECT coalesce(sum(n), 0)::int AS v FROM feature_data_versions WHERE schema_name || '.' || table_name = $1`, [
            l.table.replace(/"/g, ''),
          ])
        )[0].v;
      expect(await triggers()).toBe(1);
      await migration.dropTriggers(q);
      expect(await triggers()).toBe(0);
      const before = await version();
      await q.query(`DELETE FROM ${l.table} WHERE objectid = 2`);
      expect(await version()).toBe(before);
      await migration.addTriggers(q);
      await migration.addTriggers(q);
      expect(await triggers()).toBe(1);
      await q.query(`DELETE FROM ${l.table} WHERE objectid = 4`);
      expect(await version()).toBe(before + 1);
    } finally {
      await q.rollbackTransaction();
      await q.release();
    }
  });
});

/**
 * Webhooks benchmark, against the real API, worker, Postgres and Redis, with a receiver on loopback:
 * - unshareItems of 1,000 items x 10 groups, ITERATIONS requests with three active webhooks subscribed to it and as
 *   many with them deactivated, alternating, so both sides see the same machine; the p50 ratio is the cost;
 * - commit-to-receiver latency of those deliveries (the event's write to the receiver's answer), p50 and p95;
 * - EVENTS events written to the outbox at once: all delivered, no event id twice at the receiver (retries dropped).
 *
 *   npm run bench:webhooks            (ITERATIONS=10, EVENTS=10000 by default)
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { startReceiver } from '../test/support/receiver';
import { startWorker } from '../test/support/worker';
import { BENCH_ADMIN as ADMIN, form, pct, startBenchApp } from './support/bench-app';

const ITERATIONS = Number(process.env.ITERATIONS ?? 10);
const EVENTS = Number(process.env.EVENTS ?? 10000);

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  const b = await startBenchApp({ WEBHOOK_ALLOW: 'localhost', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_DISPATCH_MS: '100' });
  const worker = await startWorker(b.config);
  const rx = await startReceiver();
  const { base, token } = b;
  const db = b.app.get(DataSource);
  try {
    const groups: string[] = [];
    for (let i = 0; i < 10; i++) groups.push((await form(`${base}/community/createGroup`, { title: `g${i}`, token })).group.id);
    const items = Array.from({ length: 1000 }, (_, i) => `b${i.toString(16).padStart(31, '0')}`);
    await db.query(
      `INSERT INTO items (id, owner_id, org_id, title, type) SELECT x, u.id, u.org_id, x, 'Web Map' FROM unnest($1::text[]) x, users u WHERE u.username = $2`,
      [items, ADMIN.username],
    );
    const hooks: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await form(`${base}/portals/self/webhooks/createWebhook`, {
        name: `h${i}`,
        url: `http://localhost:${rx.port}/h${i}`,
        events: '/items/unshare',
        secret: 'bench',
        token,
      });
      hooks.push(r.id);
    }
    const setHooks = (on: boolean) =>
      Promise.all(hooks.map((h) => form(`${base}/portals/self/webhooks/${h}/${on ? 'activate' : 'deactivate'}`, { token })));
    const batch = { items: items.join(','), groups: groups.join(','), token };
    const times = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i < 2 * (ITERATIONS + 2); i++) {
      const on = i % 2 === 0;
      await setHooks(on);
      await form(`${base}/content/users/${ADMIN.username}/shareItems`, batch);
      const t0 = process.hrtime.bigint();
      await form(`${base}/content/users/${ADMIN.username}/unshareItems`, batch);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (i >= 4) (on ? times.on : times.off).push(ms); // the first two of each warm up
      // Webhooks match events when the dispatcher moves them: let it pass before the next toggle.
      await new Promise((r) => setTimeout(r, 300));
    }
    await setHooks(true);
    const settled = async () =>
      (await db.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'pending'`)).length === 0 &&
      (await db.query(`SELECT 1 FROM events`)).length === 0;
    await until('the unshare deliveries', settled, 120000).catch(async (e) => {
      console.error(
        await db.query(`SELECT status, count(*) FROM webhook_deliveries GROUP BY 1`),
        await db.query(`SELECT status, count(*) FROM jobs GROUP BY 1`),
      );
      throw e;
    });
    const lat: number[] = (
      await db.query(
        `SELECT extract(epoch FROM invoked - occurred)::float8 * 1000 AS ms FROM webhook_deliveries WHERE status = 'delivered' ORDER BY 1`,
      )
    ).map((r: { ms: number }) => r.ms);

    // Many events at once, as committed changes leave them: one row each in the outbox.
    await Promise.all(hooks.slice(1).map((h) => form(`${base}/portals/self/webhooks/${h}/deactivate`, { token })));
    const bulk = () => rx.events().filter((r) => r.json.events[0].properties.n !== undefined);
    const t0 = Date.now();
    await db.query(
      `INSERT INTO events (org_id, user_id, username, operation, source, source_id, keys, properties)
       SELECT u.org_id, u.id, u.username, 'unshare', 'item', 'x' || n, ARRAY['/items/unshare'], jsonb_build_object('n', n)
         FROM users u, generate_series(1, $2) n WHERE u.username = $1`,
      [ADMIN.username, EVENTS],
    );
    await until(`${EVENTS} deliveries`, async () => bulk().length >= EVENTS, 30 * 60_000);
    const ids = bulk().map((r) => r.headers['x-webhook-id']);
    const unique = new Set(ids).size;

    const f = (n: number) => n.toFixed(1);
    times.on.sort((a, c) => a - c);
    times.off.sort((a, c) => a - c);
    console.log(`unshareItems, 1,000 items x 10 groups, ${ITERATIONS} requests each side, alternating`);
    console.log(`  three webhooks: p50 ${f(pct(times.on, 50))} ms  p95 ${f(pct(times.on, 95))} ms`);
    console.log(`  none active:    p50 ${f(pct(times.off, 50))} ms  p95 ${f(pct(times.off, 95))} ms`);
    console.log(`  p50 ratio ${(pct(times.on, 50) / pct(times.off, 50)).toFixed(2)}`);
    console.log(`commit-to-receiver latency (${lat.length} deliveries): p50 ${f(pct(lat, 50))} ms  p95 ${f(pct(lat, 95))} ms`);
    console.log(
      `${EVENTS} events: ${ids.length} received in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${unique} distinct event ids, ` +
        `${EVENTS - unique} lost, ${ids.length - unique} repeats`,
    );
  } finally {
    await rx.close();
    await worker.close();
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

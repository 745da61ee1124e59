/**
 * unshareItems benchmark: 100 items x 10 groups through HTTP against the real API, Postgres and Redis.
 * Each iteration shares the batch (not timed) then unshares it (timed), so every unshare removes 1,000 rows.
 * Also counts the SQL statements one unshareItems request runs for 1 item and for 1,000 items, and times one
 * reassignItems request giving 1,000 items (each shared with the 10 groups, which the new owner is in none of) to
 * another user, with its statement counts for 1 and 1,000 items.
 *
 *   npm run bench:unshare            (ITERATIONS=200 by default)
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { BENCH_ADMIN as ADMIN, form, pct, startBenchApp } from './support/bench-app';

const ITERATIONS = Number(process.env.ITERATIONS ?? 200);

async function main() {
  const b = await startBenchApp();
  const { base, token, app } = b;
  try {
    const groups: string[] = [];
    for (let i = 0; i < 10; i++) groups.push((await form(`${base}/community/createGroup`, { title: `g${i}`, token })).group.id);
    const items: string[] = [];
    for (let i = 0; i < 100; i++)
      items.push((await form(`${base}/content/users/${ADMIN.username}/addItem`, { title: `i${i}`, type: 'Web Map', token })).id);
    const batch = { items: items.join(','), groups: groups.join(','), token };

    const times: number[] = [];
    for (let i = 0; i < ITERATIONS + 10; i++) {
      await form(`${base}/content/users/${ADMIN.username}/shareItems`, batch);
      const t0 = process.hrtime.bigint();
      const r = await form(`${base}/content/users/${ADMIN.username}/unshareItems`, batch);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.results.length !== 100 || !r.results.every((x: { success: boolean }) => x.success)) throw new Error('unexpected result');
      if (i >= 10) times.push(ms); // the first ten warm up the JIT and the connection pool
    }
    times.sort((a, b) => a - b);

    // Statement counts: every query any pg client sends while one request runs (token lookup included).
    const bulk = Array.from({ length: 1000 }, (_, i) => `b${i.toString(16).padStart(31, '0')}`);
    await app
      .get(DataSource)
      .query(
        `INSERT INTO items (id, owner_id, org_id, title, type) SELECT x, u.id, u.org_id, x, 'Web Map' FROM unnest($1::text[]) x, users u WHERE u.username = $2`,
        [bulk, ADMIN.username],
      );
    const original = Client.prototype.query;
    let statements = 0;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      statements++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    const count = async (ids: string[]) => {
      statements = 0;
      await form(`${base}/content/users/${ADMIN.username}/unshareItems`, { items: ids.join(','), groups: groups.join(','), token });
      return statements;
    };
    const one = await count(bulk.slice(0, 1));
    const thousand = await count(bulk);

    // reassignItems: the 1,000 items, shared with the 10 groups (10,000 shares the new owner cannot keep), in one request.
    Client.prototype.query = original;
    const target = `bench_target_${Date.now()}`;
    await form(`${b.root}/portaladmin/security/users/createUser`, {
      username: target,
      password: `password-${target}`,
      role: 'org_user',
      token,
    });
    await form(`${base}/content/users/${ADMIN.username}/shareItems`, { items: bulk.join(','), groups: groups.join(','), token });
    const single = `c${'0'.repeat(31)}`;
    await app
      .get(DataSource)
      .query(
        `INSERT INTO items (id, owner_id, org_id, title, type) SELECT $1, u.id, u.org_id, $1, 'Web Map' FROM users u WHERE u.username = $2`,
        [single, ADMIN.username],
      );
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      statements++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    const reassign = async (ids: string[]) => {
      statements = 0;
      const t0 = process.hrtime.bigint();
      const r = await form(`${base}/content/users/${ADMIN.username}/reassignItems`, {
        items: ids.join(','),
        targetUsername: target,
        targetFolderName: 'Handed over',
        token,
      });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.results.length !== ids.length || !r.results.every((x: { success: boolean }) => x.success)) throw new Error('unexpected result');
      return { statements, ms, left: r.results.reduce((n: number, x: { unsharedFrom: string[] }) => n + x.unsharedFrom.length, 0) };
    };
    const reassignOne = await reassign([single]);
    const reassignThousand = await reassign(bulk);
    Client.prototype.query = original;

    const f = (n: number) => n.toFixed(1);
    console.log(`unshareItems, 100 items x 10 groups (1,000 shares removed per request), ${ITERATIONS} requests over HTTP`);
    console.log(
      `  p50 ${f(pct(times, 50))} ms   p95 ${f(pct(times, 95))} ms   p99 ${f(pct(times, 99))} ms   min ${f(times[0])} ms   max ${f(times[times.length - 1])} ms`,
    );
    console.log(`SQL statements per unshareItems request (10 groups): 1 item = ${one}, 1,000 items = ${thousand}`);
    console.log(
      `reassignItems, 1,000 items (${reassignThousand.left} shares left) in one request: ${f(reassignThousand.ms)} ms; SQL statements: 1 item = ${reassignOne.statements}, 1,000 items = ${reassignThousand.statements}`,
    );
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

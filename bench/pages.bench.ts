/**
 * The sharing pages' server time for a user with 5,000 items (shared with 3 of their 20 groups, in turns) and 200
 * export jobs: each page requested ITERATIONS times over loopback with keep-alive, the pages in turns (so load from
 * elsewhere falls on all of them alike), as a signed-in browser asks for them: the page session's cookie from the
 * sign-in form, and the Fetch Metadata a navigation sends. Prints p50 and p90 of the time to the last byte, and the process CPU per request (the API runs in this process).
 *
 *   npm run bench:pages            (ITERATIONS=100 by default)
 */
import 'reflect-metadata';
import * as http from 'node:http';
import { DataSource } from 'typeorm';
import { form, pct, startBenchApp } from './support/bench-app';

const ITERATIONS = Number(process.env.ITERATIONS ?? 100);
const ITEMS = 5000;
const GROUPS = 20;
const JOBS = 200;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** Signs in through the pages' form, as the browser does; returns the session cookie. */
async function signIn(base: string, username: string): Promise<string> {
  const res = await fetch(`${base}/generateToken`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({ f: 'html', username, password: `password-${username}`, expiration: '60' }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in failed: HTTP ${res.status}`);
  return cookie;
}

function getHtml(url: string, cookie: string, mustHave = '</main>'): Promise<number> {
  const t0 = process.hrtime.bigint();
  const headers = { Accept: 'text/html', Cookie: cookie, 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'navigate' };
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          if (
            res.statusCode !== 200 ||
            !body.startsWith('<!doctype html>') ||
            body.includes('class="error-box"') ||
            !body.includes(mustHave)
          ) {
            reject(new Error(`${url}: HTTP ${res.statusCode} ${body.slice(0, 300)}`));
          } else resolve(Number(process.hrtime.bigint() - t0) / 1e6);
        });
      })
      .on('error', reject);
  });
}

async function main() {
  const b = await startBenchApp();
  try {
    const user = `bench_pages_${Date.now()}`;
    await form(`${b.root}/portaladmin/security/users/createUser`, {
      username: user,
      password: `password-${user}`,
      role: 'org_publisher',
      token: b.token,
    });
    const { token } = await form(`${b.base}/generateToken`, { username: user, password: `password-${user}`, client: 'requestip' });
    const cookie = await signIn(b.base, user);
    const groups: string[] = [];
    for (let i = 0; i < GROUPS; i++)
      groups.push((await form(`${b.base}/community/createGroup`, { title: `pages g${i}`, access: 'org', token })).group.id);
    const db = b.app.get(DataSource);
    await db.query(
      `INSERT INTO items (id, owner_id, org_id, title, type, tags, size)
        SELECT md5('pages' || n), u.id, u.org_id, 'Map ' || n, (ARRAY['Web Map', 'CSV', 'Feature Service', 'PDF'])[1 + n % 4], ARRAY['t' || (n % 50)], n * 100
          FROM generate_series(1, $1) n, users u WHERE u.username = $2`,
      [ITEMS, user],
    );
    await db.query(
      `INSERT INTO item_shares (item_id, group_id) SELECT md5('pages' || n), ($2::text[])[1 + n % 3] FROM generate_series(1, $1) n`,
      [ITEMS, groups],
    );
    await db.query(
      `INSERT INTO jobs (id, type, owner_id, source_item_id, result_item_id, status, status_message, params, created, started, finished)
        SELECT md5('job' || n), 'export', u.id, md5('pages' || n), md5('pages' || (n + 1)), 'completed', 'completed', '{"format":"csv"}',
               now() - n * interval '1 minute', now() - n * interval '1 minute', now() - n * interval '1 minute'
          FROM generate_series(1, $1) n, users u WHERE u.username = $2`,
      [JOBS, user],
    );
    await db.query('ANALYZE items; ANALYZE item_shares; ANALYZE jobs');
    // A Feature Service item (n % 4 = 2), so its page has the export history as well as the sharing panel.
    const item = (await db.query(`SELECT md5('pages' || 2) AS id`))[0].id as string;
    const pages: [string, string][] = [
      ['landing (/sharing/rest)', b.base],
      ['My content, first 50', `${b.root}/home/content.html`],
      ['My content, page 50 of 100', `${b.root}/home/content.html?start=4901&num=100`],
      ['My content, search + 3 filters', `${b.root}/home/content.html?q=map%201*&type=CSV&access=shared&group=${groups[1]}&sort=title:asc`],
      ['exports, first 50', `${b.root}/home/exports.html`],
      ['item page (sharing, exports)', `${b.base}/content/items/${item}?f=html`],
    ];
    await getHtml(`${b.base}/content/items/${item}?f=html`, cookie, 'class="export-jobs"');
    await getHtml(`${b.base}/content/items/${item}?f=html`, cookie, 'id="sharing"');
    await getHtml(`${b.root}/home/content.html`, cookie, 'Items 1–50 of 5000');
    const times = pages.map(() => [] as number[]);
    for (let i = 0; i < 10; i++) for (const [, url] of pages) await getHtml(url, cookie); // warm-up
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) for (const [k, [, url]] of pages.entries()) times[k].push(await getHtml(url, cookie));
    const cpu = process.cpuUsage(cpu0);
    console.log(`pages for a user with ${ITEMS} items, ${GROUPS} groups, ${JOBS} export jobs; ${ITERATIONS} requests a page\n`);
    console.log('page'.padEnd(34) + 'p50 ms'.padStart(8) + 'p90 ms'.padStart(8));
    for (const [k, [name]] of pages.entries()) {
      const s = times[k].sort((x, y) => x - y);
      console.log(name.padEnd(34) + pct(s, 50).toFixed(1).padStart(8) + pct(s, 90).toFixed(1).padStart(8));
    }
    const requests = ITERATIONS * pages.length;
    console.log(`\nprocess CPU (API and this client) per request: ${((cpu.user + cpu.system) / 1000 / requests).toFixed(1)} ms`);
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

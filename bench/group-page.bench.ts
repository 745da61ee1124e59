/**
 * The group page (home/group.html) with 5,000 items shared with the group and 100 members, against the real API and
 * Postgres: each tab, and the group's content as JSON (`content/groups/<id>`, the operation the Content tab draws from)
 * side by side, alternating, so the ratio shows what drawing the page adds. Times are to the last byte on loopback.
 *
 *   npm run bench:group-page            (ITERATIONS=200 by default)
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { BENCH_ADMIN as ADMIN, form, pct, startBenchApp } from './support/bench-app';
import { getPage } from './support/http-page';

const ITERATIONS = Number(process.env.ITERATIONS ?? 200);
const ITEMS = 5000;
const MEMBERS = 100;

async function main() {
  const b = await startBenchApp();
  const { base, root, token, app } = b;
  try {
    const group = (await form(`${base}/community/createGroup`, { title: 'bench group', access: 'org', token })).group.id as string;
    // Items and shares written in bulk: what is measured is reading them, and 5,000 addItem calls would only be slow.
    const ids = Array.from({ length: ITEMS }, (_, i) => `d${i.toString(16).padStart(31, '0')}`);
    const db = app.get(DataSource);
    await db.query(
      `INSERT INTO items (id, owner_id, org_id, title, type) SELECT x, u.id, u.org_id, 'Item ' || x, 'Web Map' FROM unnest($1::text[]) x, users u WHERE u.username = $2`,
      [ids, ADMIN.username],
    );
    await db.query(`INSERT INTO item_shares (item_id, group_id) SELECT x, $2 FROM unnest($1::text[]) x`, [ids, group]);
    const names: string[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const username = `bench_member_${i}`;
      await form(`${root}/portaladmin/security/users/createUser`, { username, password: `password-${username}`, role: 'org_user', token });
      names.push(username);
    }
    // addUsers takes GROUP_USERS_PER_REQUEST (25) names at a time.
    for (let i = 0; i < names.length; i += 25) {
      await form(`${base}/community/groups/${group}/addUsers`, { users: names.slice(i, i + 25).join(','), token });
    }

    const t = encodeURIComponent(token);
    const sides: [string, string][] = [
      ['Overview tab', `${root}/home/group.html?id=${group}&token=${t}`],
      ['Content tab (50 of 5,000)', `${root}/home/group.html?id=${group}&tab=content&token=${t}`],
      ['Content tab, last page', `${root}/home/group.html?id=${group}&tab=content&start=4951&token=${t}`],
      ['Members tab (50 of 101)', `${root}/home/group.html?id=${group}&tab=members&token=${t}`],
      ['content/groups JSON (num=50)', `${base}/content/groups/${group}?f=json&num=50&token=${t}`],
    ];
    for (const [name, url] of sides) {
      const r = await getPage(url);
      if (r.body.includes('error-box') || r.body.includes('"error"')) throw new Error(`${name}: ${r.body.toString().slice(0, 300)}`);
    }
    const times = sides.map(() => [] as number[]);
    for (let i = 0; i < ITERATIONS + 10; i++) {
      // Alternating sides each round, in a rotating order, so drift of the machine falls on every side alike.
      for (let k = 0; k < sides.length; k++) {
        const j = (i + k) % sides.length;
        const { ms } = await getPage(sides[j][1], false);
        if (i >= 10) times[j].push(ms);
      }
    }
    const json = [...times[sides.length - 1]].sort((x, y) => x - y);
    console.log(`group page, ${ITEMS} items shared with the group, ${MEMBERS + 1} members, ${ITERATIONS} rounds:`);
    for (let j = 0; j < sides.length; j++) {
      const s = [...times[j]].sort((x, y) => x - y);
      const ratio = (pct(s, 50) / pct(json, 50)).toFixed(2);
      console.log(
        `  ${sides[j][0].padEnd(30)} p50 ${pct(s, 50).toFixed(1)} ms  p95 ${pct(s, 95).toFixed(1)} ms  (${ratio}x the JSON's p50)`,
      );
    }
  } finally {
    await b.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

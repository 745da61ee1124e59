import { ALL_PRIVILEGES } from '../../src/core/auth/caller';
import { createUser, get, post, Reply } from '../support/client';
import { Column, COLUMNS, createRole, Fixtures, makeFixtures, USER_PRIVILEGES } from './privilege-fixtures';
import { Ctx, OK, ROWS, Row } from './privilege-rows';
import { withApp } from '../support/harness';

/**
 * Who may do what, route by route, against the running service: every cell of the table in privilege-rows.ts is one
 * real request by one caller. State-changing cells get fresh fixtures and read the state back, so a refused call
 * that still changed something fails as surely as a wrong answer.
 */

/** The outcome as the table names it: an envelope code, a messageCode, `400 <message>`, OK/NOT, or an HTTP status. */
function outcome(row: Row, r: Reply, c: Ctx): string {
  if (row.raw || r.status !== 200) return `http ${r.status}`;
  const e = r.body?.error;
  if (e) return [403, 498, 499].includes(e.code) ? String(e.code) : (e.messageCode ?? `${e.code} ${e.message}`);
  if (r.body === undefined) return `unparsed: ${r.text.slice(0, 80)}`;
  return !row.done || row.done(r.body, c) ? OK : 'not';
}

async function runCell(f: Fixtures, row: Row, col: Column): Promise<string> {
  const me = col === 'anon' ? undefined : col === 'revoked' ? f.people.owner : f.people[col];
  const token = col === 'anon' ? undefined : col === 'revoked' ? f.revokedToken : me!.token;
  const c: Ctx = { f, col, token, me, s: {} };
  c.s = row.setup ? await row.setup(c) : {};
  const got = outcome(row, await row.call(c), c);
  try {
    await row.verify?.(c, got === OK);
  } catch (e) {
    return `${got}, but ${(e as Error).message}`;
  }
  return got;
}

describe('privilege matrix', () => {
  const t = withApp();
  let f: Fixtures;

  beforeAll(async () => {
    f = await makeFixtures(t);
  }, 60_000);

  it('declares every column of every row', () => {
    expect(ROWS.filter((r) => r.cells.length !== COLUMNS.length).map((r) => `${r.route}: ${r.what}`)).toEqual([]);
  });

  // The cells of one row run together (11 requests at once); rows run one after another.
  it.each(ROWS.map((r) => [`${r.route}: ${r.what}`, r] as const))('%s', async (_name, row) => {
    const results = await Promise.all(COLUMNS.map((col) => runCell(f, row, col)));
    const got = Object.fromEntries(COLUMNS.map((col, i) => [col, results[i]]));
    const want = Object.fromEntries(COLUMNS.map((col, i) => [col, row.cells[i]]));
    expect(got).toEqual(want);
  });

  // No column holds manageRoles short of org_admin, so the role-reshaping attack gets its own case.
  it('lets a role manager reshape only roles holding nothing it lacks, since a role change reaches every holder', async () => {
    const top = await createRole(f, ALL_PRIVILEGES);
    const low = await createRole(f, USER_PRIVILEGES);
    const boss = await createUser(t.base, f.admin, top);
    const manager = await createUser(t.base, f.admin, await createRole(f, [...USER_PRIVILEGES, 'portal:admin:manageRoles']));
    const set = (role: string, privileges: string[]) =>
      post(t.base, `portals/self/roles/${role}/setPrivileges`, { privileges: JSON.stringify({ privileges }) }, manager.token);

    expect((await set(top, ['portal:user:joinGroup'])).body.error).toMatchObject({ code: 403, messageCode: 'GWM_0003' });
    expect((await get(t.base, 'community/self', {}, boss.token)).body.privileges.sort()).toEqual([...ALL_PRIVILEGES].sort());
    expect((await set(low, ['portal:user:createItem'])).body).toEqual({ success: true });
    expect((await set(low, ['portal:admin:manageUsers'])).body.error).toMatchObject({ code: 403 });
  });
});

import { adminToken, post, uniq } from '../support/client';
import { ApiProcess, spawnApi } from './support/spawn-api';

/** What a running API writes to its logs, read from the process's real stdout. */
describe('logs keep secrets out', () => {
  let api: ApiProcess;
  let admin: string;
  const lines = () =>
    api
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'));

  beforeAll(async () => {
    api = await spawnApi({ LOG_LEVEL: 'info' });
    admin = await adminToken(api.base);
  }, 90_000);
  afterAll(() => api?.stop());

  it('redacts token, password and other secrets in query strings however their names are percent-encoded', async () => {
    const secrets = ['S3CRET-A', 'S3CRET-B', 'S3CRET-C', 'S3CRET-D', 'S3CRET-E', 'S3CRET-F', 'S3CRET-G'];
    const query = [
      `%74oken=${secrets[0]}`, // t encoded: the query parser reads "token"
      `TOKEN=${secrets[1]}`,
      `pass%77ord=${secrets[2]}`,
      `%2574oken=${secrets[3]}`, // encoded twice
      `access_token=${secrets[4]}`,
      `client%5Fsecret=${secrets[5]}`,
      `new+Password=${secrets[6]}`,
      'q=visible-value',
    ].join('&');
    const marker = uniq('redact');
    const r = await fetch(`${api.base}/search?f=json&${query}&marker=${marker}`);
    await r.text();
    await new Promise((res) => setTimeout(res, 300));
    const line = lines().find((l) => l.includes(marker));
    expect(line).toBeDefined();
    for (const s of secrets) expect(line).not.toContain(s);
    expect(line).toContain('q=visible-value');
    expect(line).toContain('%74oken=[redacted]');
  });

  it('Bull Board requests reach the request log like any other, with the token redacted', async () => {
    const marker = uniq('board');
    const r = await fetch(`${api.root}/admin/queues/api/queues?token=${admin}&marker=${marker}`);
    expect(r.status).toBe(200);
    await r.text();
    const refused = await fetch(`${api.root}/admin/queues?token=not-a-token&marker=${marker}`);
    expect(refused.status).toBe(401);
    await refused.text();
    await new Promise((res) => setTimeout(res, 300));
    const logged = lines().filter((l) => l.includes(marker));
    expect(logged).toHaveLength(2);
    const [ok, denied] = logged.map((l) => JSON.parse(l) as { req: { url: string; id: string }; res: { statusCode: number } });
    expect(ok.req.url).toBe(`${new URL(api.root).pathname.replace(/\/$/, '')}/admin/queues/api/queues?token=[redacted]&marker=${marker}`);
    expect(ok.res.statusCode).toBe(200);
    expect(ok.req.id).toBeTruthy();
    expect(denied.res.statusCode).toBe(401);
    expect(api.stdout()).not.toContain(admin);
  });

  it('two racing createUser calls: the database conflict is logged without the scrypt hash, password or SQL', async () => {
    const root = api.base.replace(/\/sharing\/rest$/, '');
    let conflicts = 0;
    const passwords: string[] = [];
    // The loser's insert fails on the unique user name after both passed the existence check; a few rounds make sure
    // the race is actually lost at the database at least once (the check-then-insert window is the hashing time).
    for (let round = 0; round < 5 && conflicts === 0; round++) {
      const username = uniq('race');
      const pw = [`pw-${uniq('a')}`, `pw-${uniq('b')}`];
      passwords.push(...pw);
      const replies = await Promise.all(
        pw.map((password) => post(root, 'portaladmin/security/users/createUser', { username, password, role: 'org_user' }, admin)),
      );
      expect(replies.filter((r) => r.body?.status === 'success')).toHaveLength(1);
      await new Promise((res) => setTimeout(res, 300));
      conflicts = lines().filter((l) => l.includes('"23505"')).length;
    }
    expect(conflicts).toBeGreaterThan(0);
    const logs = api.stdout();
    expect(logs).not.toMatch(/scrypt\$\d+\$/);
    for (const pw of passwords) expect(logs).not.toContain(pw);
    expect(logs).not.toMatch(/INSERT INTO|"parameters"|"query"|"detail"/i);
  });
});

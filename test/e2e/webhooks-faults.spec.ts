import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { addItem, createGroup, post } from '../support/client';
import { withApp } from '../support/harness';
import { clearWebhooks } from '../support/webhook-state';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';
import { spawnWorker } from '../support/worker';

const WEBHOOK_ENV = { WEBHOOK_ALLOW: 'localhost', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_DISPATCH_MS: '100' };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe('webhook delivery survives killed processes', () => {
  const t = withApp({ users: { owner: 'org_publisher' }, env: { ...WEBHOOK_ENV, JOB_LOCK_MS: '2000' } });
  const { owner } = t.users;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let group: string;
  let hook: string;

  beforeAll(async () => {
    await clearWebhooks(t.db);
    rx = await startReceiver();
    group = await createGroup(t.base, owner.token);
    const r = await post(
      t.base,
      'portals/self/webhooks/createWebhook',
      { name: 'k', url: `http://localhost:${rx.port}/`, events: '/items' },
      t.admin,
    );
    hook = r.body.id;
  });
  afterAll(() => rx.close());

  const ofItem = (id: string, op: string) =>
    rx.events().filter((r) => r.json.info.webhookId === hook && r.json.events[0].operation === op && JSON.stringify(r.json).includes(id));

  it('delivers an unshare whose API was SIGKILLed right after committing it', async () => {
    const item = await addItem(t.base, owner.username, owner.token);
    await post(t.base, `content/users/${owner.username}/shareItems`, { items: item, groups: group }, owner.token);
    const port = await freePort();
    const api = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        PATH: process.env.PATH ?? '',
        TS_NODE_PROJECT: 'tsconfig.json',
        DATABASE_URL: t.config.databaseUrl,
        REDIS_URL: t.config.redisUrl,
        DATA_DIR: t.config.dataDir,
        QUEUE_PREFIX: t.config.queuePrefix,
        PORT: String(port),
        LOG_LEVEL: 'silent',
        ...WEBHOOK_ENV,
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => api.on('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}/sharing/rest`;
      await waitFor('the API', async () => (await fetch(`${base}/info?f=json`).catch(() => null))?.status === 200, 60000, 200);
      const r = await post(base, `content/users/${owner.username}/unshareItems`, { items: item, groups: group }, owner.token);
      api.kill('SIGKILL'); // the reply came after the commit; nothing of the API's runs after this
      expect(r.body.results).toEqual([{ itemId: item, success: true, notUnsharedFrom: [] }]);
    } finally {
      api.kill('SIGKILL');
      await exited;
    }
    expect(ofItem(item, 'unshare')).toHaveLength(0);
    const w = spawnWorker(t.config, WEBHOOK_ENV);
    try {
      await waitFor('the delivery', async () => ofItem(item, 'unshare').length === 1, 60000);
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 120000);

  it('sends again, with the same event id, what a worker killed mid-delivery was sending', async () => {
    const item = await addItem(t.base, owner.username, owner.token);
    let hold = true;
    rx.answer = (r) => (hold && r.json?.events?.[0]?.id === item ? { status: 0 } : { status: 200 });
    const a = spawnWorker(t.config, WEBHOOK_ENV);
    await a.waitFor('worker started');
    await post(t.base, `content/users/${owner.username}/items/${item}/protect`, {}, owner.token);
    await waitFor('the first try', async () => ofItem(item, 'protect').length === 1, 60000);
    a.child.kill('SIGKILL');
    await a.exited;
    hold = false;
    const b = spawnWorker(t.config, WEBHOOK_ENV);
    try {
      await waitFor('the second try', async () => ofItem(item, 'protect').length === 2, 60000);
      const [first, second] = ofItem(item, 'protect');
      expect(second.headers['x-webhook-id']).toBe(first.headers['x-webhook-id']);
      expect(second.headers['x-webhook-delivery']).toBe(first.headers['x-webhook-delivery']);
    } finally {
      b.child.kill('SIGTERM');
      await b.exited;
      rx.answer = () => ({ status: 200 });
    }
  }, 120000);
});

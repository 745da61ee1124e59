import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { post } from '../support/client';
import { withApp } from '../support/harness';
import { startReceiver } from '../support/receiver';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Server-side request forgery through webhooks: payload URLs that reach the cloud metadata service, private networks
 * or the host itself are refused, and nothing ever connects to them. Only `localhost` is allowed here, for `rx`.
 */
describe('webhooks: no SSRF', () => {
  const t = withApp({ env: { WEBHOOK_ALLOW: 'localhost', WEBHOOK_ALLOW_HTTP: 'true' } });
  const hooks = 'portals/self/webhooks';
  let rx: Receiver;
  beforeAll(async () => (rx = await startReceiver()));
  afterAll(() => rx.close());
  const create = (params: Record<string, string>) =>
    post(t.base, `${hooks}/createWebhook`, { name: 'hook', url: `http://localhost:${rx.port}/hook`, events: '/items', ...params }, t.admin);

  describe('refuses payload URLs that reach inside, and never connects to them', () => {
    let inner: Receiver;
    beforeAll(async () => (inner = await startReceiver()));
    afterAll(() => inner.close());

    it.each([
      ['cloud metadata', 'http://169.254.169.254/latest'],
      ['a private address', 'http://10.0.0.1/'],
      ['IPv6 loopback', () => `http://[::1]:${inner.port}/`],
      ['IPv4 loopback', () => `http://127.0.0.1:${inner.port}/`],
      ['a name that resolves to loopback', () => `http://${hostname()}:${inner.port}/`],
    ])('%s', async (_what, url) => {
      const target = typeof url === 'function' ? url() : url;
      if (target.includes(hostname())) expect((await lookup(hostname())).address).toMatch(/^127\./);
      const r = await create({ events: '/items', url: target });
      expect(r.body.error.code).toBe(400);
      expect(inner.connections()).toBe(0);
    });

    it('a redirect to loopback', async () => {
      rx.answer = () => ({ status: 302, headers: { location: `http://127.0.0.1:${inner.port}/` } });
      try {
        const r = await create({ events: '/items' });
        expect(r.body.error).toMatchObject({ code: 400, details: ['It answered HTTP 302.'] });
      } finally {
        rx.answer = () => ({ status: 200 });
      }
      expect(inner.connections()).toBe(0);
    });

    it('plain http unless allowed', async () => {
      const strict = await post(t.base, `${hooks}/createWebhook`, { name: 'x', url: 'ftp://localhost/', events: '/items' }, t.admin);
      expect(strict.body.error.details).toEqual(['The payload URL must use https.']);
    });
  });
});

import { addItem, createUser, post, uniq } from '../support/client';
import { withApp } from '../support/harness';
import { MARKUP } from '../support/sample-service';

/**
 * Which requests get the landing page and the home pages (under CONTEXT_PATH=/portal), which keep their JSON, and what
 * the pages show to whom: a browser's Accept decides at `/`, the context path, sharing/rest and the catalog; `f` or an
 * API client's Accept keeps today's answer.
 */
describe('landing page and home pages', () => {
  const t = withApp({ users: { owner: 'org_user', other: 'org_user' }, env: { CONTEXT_PATH: '/portal' } });
  const { owner, other } = t.users;
  const origin = () => t.root.replace(/\/portal$/, '');
  const browser = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

  async function fetchText(url: string, init: RequestInit = {}) {
    const res = await fetch(url, init);
    return { status: res.status, type: res.headers.get('content-type') ?? '', vary: res.headers.get('vary') ?? '', body: await res.text() };
  }

  it.each(['/', '/portal', '/portal/', '/portal/sharing/rest', '/portal/sharing/rest/', '/portal/sharing/rest?f=html'])(
    'a browser at %s gets the landing page, its links under the context path',
    async (p) => {
      const r = await fetchText(`${origin()}${p}`, { headers: browser });
      expect(r.type).toMatch(/^text\/html/);
      expect(r.body).toContain('<h1>ArcGIS Sharing</h1>');
      expect(r.body).toContain('href="/portal/arcgis/rest/static/directory.css"');
      expect(r.body).toContain('href="/portal/arcgis/rest/services?f=html"');
      expect(r.body).toContain('id="landing-sign-in"');
    },
  );

  it.each([
    ['no Accept', '/portal/sharing/rest', {}],
    ['Accept: application/json', '/portal/sharing/rest', { Accept: 'application/json' }],
    ['f=json', '/portal/sharing/rest?f=json', browser],
    ['f=pjson', '/portal/?f=pjson', browser],
  ])('%s keeps the JSON answer (%s)', async (_what, p, headers) => {
    const r = await fetchText(`${origin()}${p}`, { headers });
    expect(JSON.parse(r.body).error.message).toBe('Invalid URL');
  });

  it('answers Vary: Accept where the page and the JSON share a URL; POST and HEAD', async () => {
    const json = await fetchText(`${t.root}/sharing/rest`);
    expect(json.vary).toMatch(/Accept/);
    const catalog = await fetchText(`${t.root}/arcgis/rest/services`);
    expect(catalog.vary).toMatch(/Accept/);
    expect(JSON.parse(catalog.body).services).toBeDefined();
    const page = await fetchText(`${t.root}/arcgis/rest/services`, { headers: browser });
    expect(page.body).toContain('<h1>Folder: /</h1>');
    const post = await fetchText(`${t.root}/sharing/rest`, { method: 'POST', headers: browser });
    expect(JSON.parse(post.body).error.message).toBe('Invalid URL');
    const head = await fetch(`${t.root}/`, { method: 'HEAD', headers: browser });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('asks an anonymous visitor of My content and Exports to sign in, and brings them back', async () => {
    for (const name of ['content', 'exports', 'groups']) {
      const r = await fetchText(`${t.root}/home/${name}.html`);
      expect(r.type).toMatch(/^text\/html/);
      expect(r.body).toContain('data-error="499"');
      expect(r.body).toContain(`next=%2Fportal%2Fhome%2F${name}.html`);
    }
  });

  it("draws My content for its owner, escaped; refuses another user's to a non-administrator", async () => {
    const title = `${MARKUP} pages`;
    const id = await addItem(t.base, owner.username, owner.token, { title });
    const mine = await fetchText(`${t.root}/home/content.html?token=${owner.token}&q=${encodeURIComponent('pages')}`);
    expect(mine.body).toContain(`data-id="${id}"`);
    expect(mine.body).not.toContain(MARKUP);
    expect(mine.body).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp; pages</a>');
    // Drawn for a token in its URL, the page offers no action: its scripts act through the page session only.
    expect(mine.body).toContain('Sign in on this site to share and unshare from this page.');
    expect(mine.body).not.toContain('content.js');
    const refused = await fetchText(`${t.root}/home/content.html?token=${other.token}&user=${owner.username}`);
    expect(refused.body).toContain('data-error="403"');
    expect(refused.body).toContain('Only the owner or an administrator may list a user&#39;s content.');
    const admin = await fetchText(`${t.root}/home/content.html?token=${t.admin}&user=${owner.username}`);
    expect(admin.body).toContain(`<h1>Content of ${owner.username}</h1>`);
    expect(admin.body).toContain(`data-id="${id}"`);
    expect(admin.body).toContain('href="/portal/home/users.html"');
    expect(mine.body).not.toContain('href="/portal/home/users.html"');
  });

  it('links the Users page for user administrators and the Webhooks page for full administrators only', async () => {
    const role = (await post(t.base, 'portals/self/createRole', { name: uniq('viewers') }, t.admin)).body;
    const priv = JSON.stringify({ privileges: ['portal:admin:viewUsers', 'portal:user:createItem'] });
    await post(t.base, `portals/self/roles/${role.id}/setPrivileges`, { privileges: priv }, t.admin);
    const viewer = await createUser(t.base, t.admin, role.id);
    const limited = await fetchText(`${t.root}/home/content.html?token=${viewer.token}`);
    expect(limited.body).toContain('href="/portal/home/users.html"');
    expect(limited.body).not.toContain('href="/portal/home/webhooks.html"');
    const full = await fetchText(`${t.root}/home/content.html?token=${t.admin}`);
    expect(full.body).toContain('href="/portal/home/webhooks.html"');
  });

  it('shows bad filter values as the envelope message', async () => {
    const r = await fetchText(`${t.root}/home/content.html?token=${owner.token}&access=bogus`);
    expect(r.body).toContain('data-error="400"');
    expect(r.body).toContain('&#39;access&#39; must be private, shared, org or public.');
    const q = await fetchText(`${t.root}/home/content.html?token=${owner.token}&q=${encodeURIComponent('((')}`);
    expect(q.body).toContain('data-error="400"');
  });
});

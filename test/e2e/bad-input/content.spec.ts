/** Bad input on the content routes: items, user content, search. */
import { addItem, uniq } from '../../support/client';
import { describeReq, expectError, expectOk, fx, hostileProblem, moduleSuite, Params, send, short, t } from './support';
import { CONTENT_CASES, CONTENT_ROUTES } from './tables';

moduleSuite('content', CONTENT_ROUTES, CONTENT_CASES, () => {
  // --- values that must not reach Postgres unchecked, and q edge cases ---

  const paged: [string, () => string, Params][] = [
    ['content/users/:owner', (): string => `content/users/${fx.owner.username}`, {}],
    ['search', (): string => 'search', { q: 'item' }],
    ['content/groups/:id', (): string => `content/groups/${fx.groupId}`, {}],
    ['content/groups/:id/search', (): string => `content/groups/${fx.groupId}/search`, { q: 'item' }],
  ];
  it.each(paged)('%s: start=99999999999999999999 answers an empty page or a 400 naming start, never 500', async (_n, path, extra) => {
    const params: Params = { f: 'json', ...extra, start: '99999999999999999999', token: fx.owner.token };
    const r = await send(`${t.base}/${path()}`, { method: 'GET', params });
    const req = describeReq('GET', `${t.base}/${path()}`, params);
    if (r.body?.error) expectError(r, req, { code: 400, text: /start/ });
    else {
      expectOk(r, req);
      expect(r.body.results ?? r.body.items).toEqual([]);
    }
  });

  it('search: q of exactly 2048 characters is accepted, on /search and on a group search', async () => {
    // Within the 512 characters the terms may have together: the rest is white space.
    const q = 'x'.repeat(500).padEnd(2048, ' ');
    for (const path of ['search', `content/groups/${fx.groupId}/search`]) {
      const r = await send(`${t.base}/${path}`, { params: { f: 'json', q, token: fx.owner.token } });
      expectOk(r, `POST ${path} q=<2048 chars>`);
    }
  });

  it('content/groups/:id/search: a q with unbalanced parentheses cannot escape the group', async () => {
    const outside = await addItem(t.base, fx.owner.username, fx.owner.token, { title: uniq('outside') });
    const q = `nomatch_zzz) OR (id: ${outside}`;
    const r = await send(`${t.base}/content/groups/${fx.groupId}/search`, { params: { f: 'json', q, token: fx.owner.token } });
    const req = `POST content/groups/${fx.groupId}/search q=${q}`;
    // The item is not in the group: the reply must be a 400 for the unbalanced q (or, at the very least, not list it).
    expect({ req, leaked: (r.body?.results ?? []).some((x: { id: string }) => x.id === outside) }).toEqual({ req, leaked: false });
    expectError(r, req, { code: 400, message: "Invalid value for parameter 'q'." });
  });

  it('search: deeply nested NOT and parentheses answer JSON, not a crash', async () => {
    for (const q of ['NOT '.repeat(500) + 'a', '('.repeat(1000) + 'a' + ')'.repeat(1000), '('.repeat(2000)]) {
      const r = await send(`${t.base}/search`, { params: { f: 'json', q, token: fx.owner.token } });
      expect({ q: short(q, 40), problem: hostileProblem(r) }).toEqual({ q: short(q, 40), problem: null });
    }
  });
});

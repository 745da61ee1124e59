/** Bad input on the content routes: items, user content, search. */
import { addItem, uniq } from '../../support/client';
import {
  Case,
  caseTable,
  describeReq,
  expectError,
  expectOk,
  fx,
  ghost,
  hostileProblem,
  INVALID,
  long,
  notHex,
  noToken,
  o,
  Params,
  routeTables,
  send,
  short,
  t,
  useFixture,
} from './support';
import { CONTENT_ROUTES } from './routes';

describe('bad input: content', () => {
  useFixture();
  routeTables(CONTENT_ROUTES);

  describe('missing and malformed parameters', () => {
    const CASES: Record<string, Case> = {
      // addItem
      'addItem: title and type missing': {
        path: () => `content/users/${o()}/addItem`,
        want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
      },
      'addItem: type missing': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x' }),
        want: () => ({ code: 400, detail: "'type' and 'title' property required." }),
      },
      'addItem: blank title': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: '   ', type: 'Web Map' }),
        want: () => ({ code: 400, message: "'type' and 'title' property required." }),
      },
      'addItem: title of 257 characters': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: long(257), type: 'Web Map' }),
        want: () => ({ code: 400, detail: "'title' must be at most 256 characters." }),
      },
      'addItem: properties not JSON': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '{oops' }),
        want: () => ({ code: 400, message: "'properties' is not a valid JSON object." }),
      },
      'addItem: properties a JSON array': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '[1,2]' }),
        want: () => ({ code: 400, message: "'properties' is not a valid JSON object.", detail: 'expected a JSON object' }),
      },
      'addItem: properties with a \\u0000 escape': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', properties: '{"a":"\\u0000"}' }),
        want: () => ({ code: 400, text: /properties/ }),
      },
      'addItem: extent with 3 numbers': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', extent: '1,2,3' }),
        want: () => ({ code: 400, message: "'extent' is not valid.", detail: 'xmin,ymin,xmax,ymax' }),
      },
      'addItem: extent not numbers': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', extent: 'a,b,c,d' }),
        want: () => ({ code: 400, message: "'extent' is not valid." }),
      },
      'addItem: tag longer than 256': {
        path: () => `content/users/${o()}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map', tags: `ok,${long(257)}` }),
        want: () => ({ code: 400, text: /tags/ }),
      },
      'addItem: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'addItem: malformed owner → COM_0019': {
        path: () => `content/users/${encodeURIComponent("o'brien;--")}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, messageCode: 'COM_0019' }),
      },
      "addItem: into another user's content → 403": {
        path: () => `content/users/${fx.member.username}/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 403, messageCode: 'GWM_0003', detail: 'Items can only be added to your own content.' }),
      },
      'addItem: into a folder': {
        path: () => `content/users/${o()}/somefolder/addItem`,
        params: () => ({ title: 'x', type: 'Web Map' }),
        want: () => ({ code: 400, message: 'Folder does not exist.', detail: 'somefolder' }),
      },

      // user content
      'content/users/:owner: start=abc': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: 'abc' }),
        want: () => ({ code: 400, message: INVALID, detail: "'start' must be a whole number." }),
      },
      'content/users/:owner: start=1.5': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: '1.5' }),
        want: () => ({ code: 400, detail: "'start' must be a whole number." }),
      },
      'content/users/:owner: start=0': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ start: '0' }),
        want: () => ({ code: 400, detail: "'start' must be 1 or more." }),
      },
      'content/users/:owner: num=ten': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: 'ten' }),
        want: () => ({ code: 400, detail: "'num' must be a whole number." }),
      },
      'content/users/:owner: num=-1': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: '-1' }),
        want: () => ({ code: 400, detail: "'num' must be 0 or more." }),
      },
      'content/users/:owner: num=101': {
        method: 'GET',
        path: () => `content/users/${o()}`,
        params: () => ({ num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },
      'content/users/:owner: unknown owner → COM_0019': {
        method: 'GET',
        path: () => `content/users/${ghost}`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      "content/users/:owner: another user's content → 403": {
        method: 'GET',
        path: () => `content/users/${fx.member.username}`,
        want: () => ({ code: 403, messageCode: 'GWM_0003' }),
      },

      // items
      'content/items/:id: not hex': {
        method: 'GET',
        path: () => `content/items/${notHex}`,
        want: () => ({
          code: 400,
          messageCode: 'CONT_0001',
          message: 'Item does not exist or is inaccessible.',
          detail: 'is not a valid item id (32 hexadecimal characters)',
        }),
      },
      'content/items/:id: 31 hex characters': {
        method: 'GET',
        path: () => `content/items/${fx.itemId.slice(1)}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'content/items/:id: 33 hex characters': {
        method: 'GET',
        path: () => `content/items/${fx.itemId}0`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'content/items/:id: unknown id': {
        method: 'GET',
        path: () => `content/items/${fx.missingId}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', message: 'Item does not exist or is inaccessible.', detail: fx.missingId }),
      },
      'content/items/:id: private item, anonymous': {
        method: 'GET',
        token: noToken,
        path: () => `content/items/${fx.itemId}`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'content/items/:id/data: not hex': {
        method: 'GET',
        path: () => `content/items/abc/data`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: "'abc' is not a valid item id" }),
      },
      'content/items/:id/data: unknown id': {
        method: 'GET',
        path: () => `content/items/${fx.missingId}/data`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'delete: id not hex': {
        path: () => `content/users/${o()}/items/${notHex}/delete`,
        want: () => ({ code: 400, messageCode: 'CONT_0001', detail: 'is not a valid item id' }),
      },
      'delete: unknown id': {
        path: () => `content/users/${o()}/items/${fx.missingId}/delete`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'delete: unknown owner → COM_0019': {
        path: () => `content/users/${ghost}/items/${fx.itemId}/delete`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },
      'delete: owner and item id both malformed → the owner is named first, as the URL nests them': {
        path: () => `content/users/bad!!/items/${notHex}/delete`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: 'bad!!' }),
      },
      'status: jobType=foo': {
        method: 'GET',
        path: () => `content/users/${o()}/items/${fx.itemId}/status`,
        params: () => ({ jobType: 'foo' }),
        want: () => ({ code: 400, detail: "'jobType' must be one of publish, generateFeatures, export, createService." }),
      },
      'status: id not hex': {
        method: 'GET',
        path: () => `content/users/${o()}/items/xyz/status`,
        want: () => ({ code: 400, messageCode: 'CONT_0001' }),
      },
      'status: unknown owner → COM_0019': {
        method: 'GET',
        path: () => `content/users/${ghost}/items/${fx.itemId}/status`,
        want: () => ({ code: 400, messageCode: 'COM_0019', detail: ghost }),
      },

      // search
      'search: q missing': { method: 'GET', path: () => 'search', want: () => ({ code: 400, message: "'q' is required." }) },
      'search: q blank': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '   ' }),
        want: () => ({ code: 400, message: "'q' is required." }),
      },
      'search: q of 2049 characters': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: long(2049) }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "'q' is longer than 2048 characters." }),
      },
      'search: q of 10,000 characters (POST)': {
        path: () => 'search',
        params: () => ({ q: long(10000) }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: 'longer than 2048' }),
      },
      'search: unknown field foo: bar': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'foo: bar' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unknown search field 'foo'" }),
      },
      'search: unbalanced "(title: a"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '(title: a' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Missing ')'." }),
      },
      'search: unbalanced "title: a)"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title: a)' }),
        want: () => ({ code: 400, message: "Invalid value for parameter 'q'.", detail: "Unexpected ')'" }),
      },
      'search: unbalanced "((a)"': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: '((a)' }),
        want: () => ({ code: 400, detail: "Missing ')'." }),
      },
      'search: unbalanced ")("': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: ')(' }),
        want: () => ({ code: 400, detail: "Unexpected ')'" }),
      },
      'search: field without value': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title:' }),
        want: () => ({ code: 400, detail: "Missing value after 'title:'." }),
      },
      'search: unterminated quote': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'title: "abc' }),
        want: () => ({ code: 400, detail: 'Unterminated quote' }),
      },
      'search: dangling OR': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a OR' }),
        want: () => ({ code: 400, detail: 'The query ends where a search term was expected.' }),
      },
      'search: 33 terms': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: Array.from({ length: 33 }, (_, i) => `t${i}`).join(' OR ') }),
        want: () => ({ code: 400, detail: 'More than 32 search terms.' }),
      },
      'search: sortField=bogus': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', sortField: 'bogus' }),
        want: () => ({ code: 400, detail: "'sortField' must be one of title, created, modified, type, owner, size, id, numViews." }),
      },
      'search: sortOrder=sideways': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', sortOrder: 'sideways' }),
        want: () => ({ code: 400, detail: "'sortOrder' must be asc or desc." }),
      },
      'search: num=101': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', num: '101' }),
        want: () => ({ code: 400, detail: "'num' must be at most 100." }),
      },
      'search: start=x': {
        method: 'GET',
        path: () => 'search',
        params: () => ({ q: 'a', start: 'x' }),
        want: () => ({ code: 400, detail: "'start' must be a whole number." }),
      },
    };
    caseTable(CASES);

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
});

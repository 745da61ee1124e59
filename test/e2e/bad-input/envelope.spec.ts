/**
 * Bad input on every route, as ArcGIS answers it and as the client's token refresh needs: the reply is always HTTP 200 with the ArcGIS
 * envelope {"error":{code,messageCode?,message,details}} and a message that says what is wrong — never HTTP 500,
 * never a stack trace, never an HTML page.
 *
 * 499 (GWM_0003) token missing, 498 invalid token, 403 forbidden, 400 bad input, 400 CONT_0001 missing item,
 * 400 COM_0019 unknown user, 400 COM_0003 missing group, 400 GWM_0002 unknown URL. `f` is json or pjson.
 */
import { get, Reply, uniq } from '../../support/client';
import {
  describeReq,
  expectError,
  expectOk,
  fitsUrl,
  fx,
  GARBAGE_TOKEN,
  HOSTILE,
  hostileProblem,
  Method,
  methodsOf,
  Params,
  pool,
  send,
  short,
  t,
  tokenOf,
  urlOf,
  useFixture,
} from './support';
import { ROUTES } from './tables';

describe('bad input on every route: the envelope', () => {
  useFixture();

  describe('token missing → 499 GWM_0003', () => {
    it('a non-Bearer Authorization header counts as no token', async () => {
      const url = `${t.base}/community/self`;
      const r = await send(url, {
        params: { f: 'json' },
        headers: { Authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` },
      });
      expectError(r, 'POST community/self Authorization: Basic', { code: 499, messageCode: 'GWM_0003', message: 'Token Required' });
    });
  });

  describe('garbage token → 498 (token param, Authorization: Bearer, X-Esri-Authorization: Bearer)', () => {
    it('a valid token in the Authorization or X-Esri-Authorization header is accepted (control)', async () => {
      for (const h of ['Authorization', 'X-Esri-Authorization']) {
        const r = await send(`${t.base}/community/self`, {
          method: 'GET',
          params: { f: 'json' },
          headers: { [h]: `Bearer ${fx.owner.token}` },
        });
        expectOk(r, `GET community/self ${h}: Bearer <valid>`);
        expect(r.body.username).toBe(fx.owner.username);
      }
    });
  });

  describe('f must be json or pjson → 400 naming the allowed values', () => {
    it('f sent twice (f=json&f=xml) is rejected, not half-applied', async () => {
      const r = await send(`${t.base}/portals/self?f=json&f=xml`, { method: 'GET' });
      expectError(r, 'GET portals/self?f=json&f=xml', { code: 400, detail: "Allowed values of 'f': json, pjson." });
    });
  });

  describe('f=pjson is indented JSON; a missing f means compact json', () => {
    const indented = (r: Reply) => r.text === JSON.stringify(JSON.parse(r.text), null, 2) && r.text.includes('\n  "');

    it('success replies (GET and POST)', async () => {
      const a = await send(`${t.base}/portals/self`, { method: 'GET', params: { f: 'pjson' } });
      expectOk(a, 'GET portals/self f=pjson');
      expect(indented(a)).toBe(true);
      const b = await send(`${t.base}/community/self`, { params: { f: 'pjson', token: fx.owner.token } });
      expectOk(b, 'POST community/self f=pjson');
      expect(indented(b)).toBe(true);
      const c = await send(`${t.base}/search`, { method: 'GET', params: { f: 'pjson', q: 'title: item', token: fx.owner.token } });
      expectOk(c, 'GET search f=pjson');
      expect(indented(c)).toBe(true);
    });

    it('error replies (400, 499, 498, unknown URL) are indented too', async () => {
      const cases: [string, Promise<Reply>][] = [
        ['content/items/nothex f=pjson', send(`${t.base}/content/items/nothex`, { method: 'GET', params: { f: 'pjson' } })],
        ['community/self f=pjson no token', send(`${t.base}/community/self`, { params: { f: 'pjson' } })],
        ['community/self f=pjson garbage token', send(`${t.base}/community/self`, { params: { f: 'pjson', token: GARBAGE_TOKEN } })],
        ['nope f=pjson', send(`${t.base}/nope`, { method: 'GET', params: { f: 'pjson' } })],
      ];
      for (const [req, p] of cases) {
        const r = await p;
        expectError(r, req, { code: (r.body as { error?: { code: number } })?.error?.code ?? -1 });
        expect({ req, indented: indented(r) }).toEqual({ req, indented: true });
      }
    });

    it('missing f and empty f answer compact json', async () => {
      for (const params of [{}, { f: '' }] as Params[]) {
        const r = await send(`${t.base}/portals/self`, { method: 'GET', params });
        expectOk(r, `GET portals/self ${JSON.stringify(params)}`);
        expect(r.text).not.toContain('\n');
        const e = await send(`${t.base}/content/items/nothex`, { method: 'GET', params });
        expectError(e, `GET content/items/nothex ${JSON.stringify(params)}`, { code: 400, messageCode: 'CONT_0001' });
        expect(e.text).not.toContain('\n');
      }
    });
  });

  describe('unsupported methods → 400 envelope, never an HTML page', () => {
    it('GET on a POST-only operation is an unknown URL, not a 404 page', async () => {
      for (const r of ROUTES.filter((x) => x.kind === 'POST' && x.name !== 'generateToken')) {
        const res = await send(urlOf(r), { method: 'GET', params: { f: 'json', token: tokenOf(r) } });
        expectError(res, describeReq('GET', urlOf(r)), { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL' });
      }
    });

    it('GET generateToken is refused: passwords must not travel in URLs', async () => {
      const r = await get(t.base, 'generateToken', { username: fx.owner.username, password: fx.owner.password });
      expectError(r, 'GET generateToken', { code: 400, message: 'Unable to generate token.', detail: 'generateToken requires POST.' });
    });
  });

  describe('unknown routes → 400 GWM_0002 "Invalid URL"', () => {
    const paths: [Method, string, boolean][] = [
      ['GET', '/sharing/rest/nope', false],
      ['POST', '/sharing/rest/nope', true],
      ['GET', '/sharing/rest', false],
      ['GET', '/sharing/rest/', false],
      ['GET', '/sharing/rest/content/items', false],
      ['POST', '/sharing/rest/content/items/0123456789abcdef0123456789abcdef/nope', true],
      ['GET', '/sharing/rest/content/items/0123456789abcdef0123456789abcdef/data/extra', false],
      // community/users itself is the user search.
      ['POST', '/sharing/rest/community/users/someone/nope', true],
      ['GET', '/sharing/rest/community/groups/0123456789abcdef0123456789abcdef/members', false],
      ['POST', '/sharing/rest/portals/self/roles/0123456789abcdef0123456789abcdef/delete', true],
      ['GET', '/', false],
      ['GET', '/index.html', false],
      ['GET', '/portaladmin/security/users', false],
      ['POST', '/portaladmin/security/users/deleteUser', true],
      ['GET', '/sharing/rest/../../etc/passwd', false],
    ];
    it.each(paths)('%s %s (token: %s)', async (method, path, withToken) => {
      const params: Params = { f: 'json', ...(withToken ? { token: fx.owner.token } : {}) };
      const r = await send(`${t.root}${path}`, { method, params });
      expectError(r, `${method} ${path}`, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL', detail: 'No operation at' });
    });

    it('a malformed percent-escape in the path answers an envelope', async () => {
      for (const path of [
        '/sharing/rest/content/items/%E0%A4%A',
        '/sharing/rest/community/users/%',
        '/sharing/rest/community/groups/%zz',
      ]) {
        const r = await send(`${t.root}${path}`, { method: 'GET', params: { f: 'json' } });
        expectError(r, `GET ${path}`, { code: 400 });
      }
    });

    it('/health is plain JSON; other methods on it answer the envelope', async () => {
      const ok = await send(`${t.root}/health`, { method: 'GET' });
      expect({ http: ok.status, body: ok.body }).toMatchObject({ http: 200, body: { status: 'ok' } });
      for (const method of ['POST', 'PUT', 'DELETE'] as Method[]) {
        const r = await send(`${t.root}/health`, { method, params: { f: 'json' } });
        expectError(r, `${method} /health`, { code: 400, messageCode: 'GWM_0002', message: 'Invalid URL' });
      }
    });
  });

  describe('malformed bodies', () => {
    const BAD_JSON = ['{"f":"json", "q": ', '{f: json}', "{'f':'json'}", '[1,2', '"unterminated', 'nul\u0000l'];
    const targets: [string, string, boolean][] = [
      ['search (public)', 'search', false],
      ['community/createGroup (token required)', 'community/createGroup', true],
      ['generateToken', 'generateToken', false],
      ['content/users/:owner/shareItems', 'content/users/:owner/shareItems', true],
    ];
    it.each(targets)('malformed JSON with content-type application/json: %s', async (_n, path, withToken) => {
      for (const body of BAD_JSON) {
        const url = `${t.base}/${path.replace(':owner', fx.owner.username)}`;
        const headers = withToken ? { Authorization: `Bearer ${fx.owner.token}` } : undefined;
        const r = await send(url, { body, contentType: 'application/json', headers, params: { f: 'json' } });
        expectError(r, `POST ${path} application/json ${JSON.stringify(body)}`, {
          code: 400,
          message: 'Unable to parse the request body.',
        });
      }
    });

    it('a well-formed JSON body is read like a form (control)', async () => {
      const r = await send(`${t.base}/search`, {
        body: JSON.stringify({ f: 'json', q: 'title: item', token: fx.owner.token }),
        contentType: 'application/json',
      });
      expectOk(r, 'POST search application/json');
      expect(r.body.total).toBeGreaterThan(0);
    });

    const B = 'XbOuNdArY123';
    const part = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const filePart = (name: string, file: string, value: string) =>
      `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: text/csv\r\n\r\n${value}\r\n`;
    const multipartCases: [string, string, string, RegExp][] = [
      ['no boundary in the content-type', 'multipart/form-data', part('f', 'json') + `--${B}--\r\n`, /boundary/i],
      [
        'body cut off before the closing boundary',
        `multipart/form-data; boundary=${B}`,
        part('f', 'json') + `--${B}\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc`,
        /end of form|unexpected end/i,
      ],
      [
        'garbage instead of parts',
        `multipart/form-data; boundary=${B}`,
        'this is not multipart at all',
        /end of form|unexpected end|malformed/i,
      ],
      ['part without headers', `multipart/form-data; boundary=${B}`, `--${B}\r\n\r\nvalue\r\n--${B}--\r\n`, /malformed part header/i],
      [
        'two files where one is allowed',
        `multipart/form-data; boundary=${B}`,
        filePart('file', 'a.csv', 'a,b') + filePart('file2', 'b.csv', 'c,d') + `--${B}--\r\n`,
        /too many files/i,
      ],
    ];
    it.each(multipartCases)('malformed multipart: %s', async (_n, contentType, body, text) => {
      for (const [path, withToken] of [
        [`content/users/${fx.owner.username}/addItem`, true],
        ['search', false],
      ] as const) {
        const headers = withToken ? { Authorization: `Bearer ${fx.owner.token}` } : undefined;
        const r = await send(`${t.base}/${path}`, { body, contentType, headers, params: { f: 'json' } });
        expectError(r, `POST ${path} ${contentType} (${_n})`, { code: 400, text });
      }
    });

    it('a well-formed multipart addItem with a file and the token in the body works (control)', async () => {
      const body =
        part('f', 'json') +
        part('token', fx.owner.token) +
        part('title', uniq('csv')) +
        part('type', 'CSV') +
        filePart('file', 'a.csv', 'a,b\n1,2') +
        `--${B}--\r\n`;
      const r = await send(`${t.base}/content/users/${fx.owner.username}/addItem`, {
        body,
        contentType: `multipart/form-data; boundary=${B}`,
      });
      expectOk(r, 'POST addItem multipart');
      expect(r.body.success).toBe(true);
    });

    it('a form body in an unsupported charset answers an envelope', async () => {
      const r = await send(`${t.base}/search`, { body: 'f=json&q=abc', contentType: 'application/x-www-form-urlencoded; charset=koi8-r' });
      expectError(r, 'POST search urlencoded charset=koi8-r', { code: 400, text: /charset/i });
    });

    it('a body that claims gzip answers an envelope refusing compressed bodies', async () => {
      const r = await send(`${t.base}/search`, {
        body: 'f=json&q=abc',
        contentType: 'application/x-www-form-urlencoded',
        headers: { 'Content-Encoding': 'gzip' },
      });
      // The message must say what is wrong with the body (its encoding), not just "Bad Request".
      expectError(r, 'POST search Content-Encoding: gzip (not gzip)', { code: 415, text: /gzip|encoding|decompress|compressed|inflate/i });
    });
  });

  describe('hostile strings into every string parameter', () => {
    it('a hostile token is always 498, on every route', async () => {
      const tasks = ROUTES.flatMap((r) =>
        HOSTILE.filter(([, v]) => v.trim() !== '' && fitsUrl(v)).flatMap(([label, value]) =>
          methodsOf(r).map((method) => async () => {
            const params: Params = { f: 'json', ...(r.params?.() ?? {}), token: value };
            const res = await send(urlOf(r), { method, params });
            const code = (res.body as { error?: { code?: number } })?.error?.code;
            const problem = hostileProblem(res) ?? (code === 498 ? null : `expected 498, got ${short(res.text, 200)}`);
            return problem ? `${method} ${r.name} token=<${label}> → ${problem}` : null;
          }),
        ),
      );
      const problems = (await pool(tasks, 8)).filter((p): p is string => p !== null);
      expect(problems).toEqual([]);
    }, 180_000);

    it('hostile keys and duplicate keys answer JSON', async () => {
      const tasks = ROUTES.map((r) => async () => {
        const body = `f=json&token=${encodeURIComponent(tokenOf(r))}&__proto__=x&constructor=y&${encodeURIComponent("'; DROP TABLE items; --")}=1&%00=2&q=a&q=b&title=a&title=b`;
        const res = await send(urlOf(r), { body, contentType: 'application/x-www-form-urlencoded' });
        const problem = hostileProblem(res);
        return problem ? `POST ${r.name} hostile keys → ${problem}` : null;
      });
      const problems = (await pool(tasks, 6)).filter((p): p is string => p !== null);
      expect(problems).toEqual([]);
    });

    it('the items table (and the fixture item) still exist afterwards', async () => {
      const [{ reg }] = await t.db.query(`SELECT to_regclass('public.items')::text AS reg`);
      expect(reg).toBe('items');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM items`);
      expect(n).toBeGreaterThan(0);
      const r = await get(t.base, `content/items/${fx.itemId}`, {}, fx.owner.token);
      expectOk(r, 'GET fixture item');
      expect(r.body.id).toBe(fx.itemId);
    });
  });
});

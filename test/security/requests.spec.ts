import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ADMIN, startApp, TestApp } from '../support/app';
import { adminToken, post } from '../support/client';
import { end, field, file, MULTIPART, RawReply, streamPost } from './support/raw-http';
import { ApiProcess, spawnApi } from './support/spawn-api';
import { withApp } from '../support/harness';

const MB = 1024 * 1024;
const tmpFiles = (dataDir: string) => readdirSync(path.join(dataDir, 'tmp'));
const settle = () => new Promise((r) => setTimeout(r, 300));

/** Descriptors this process holds on files under DATA_DIR/tmp, deleted ones included ("... (deleted)"). */
function tmpDescriptors(dataDir: string): string[] {
  const tmp = path.join(dataDir, 'tmp') + path.sep;
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(tmp)) out.push(target);
    } catch {
      // closed between the listing and the read
    }
  }
  return out;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 25))) if (check()) return true;
  return check();
}

function expectRefused(r: RawReply, limit: RegExp) {
  expect(r.status).toBe(413);
  expect(r.body.error.code).toBe(413);
  expect(r.body.error.details.join(' ')).toMatch(limit);
  expect(r.headers.connection).toBe('close');
}

describe('request bodies are bounded before authentication', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  it('a Content-Length over BODY_MAX_MB is answered 413 at once, without waiting for the body', async () => {
    const u = new URL(t.base);
    const socket = net.connect(Number(u.port), '127.0.0.1');
    socket.write(
      `POST ${u.pathname}/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 2000000000\r\n\r\nf=json`,
    );
    let reply = '';
    socket.on('data', (d) => (reply += d));
    const started = Date.now();
    await new Promise((r) => socket.on('close', r));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(reply).toMatch(/^HTTP\/1.1 413/);
    expect(reply).toMatch(/BODY_MAX_MB/);
  });

  it('a chunked form body is cut where it crosses BODY_MAX_MB, not read to its end', async () => {
    function* endless() {
      for (let i = 0; i < 4096; i++) yield Buffer.alloc(64 * 1024, 'a'); // 256 MB offered
    }
    const r = await streamPost(
      `${t.base}/search`,
      { 'Content-Type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' },
      endless(),
    );
    expectRefused(r, /BODY_MAX_MB/);
    expect(r.sent).toBeLessThan(40 * MB);
  });

  it('multipart: too many fields, a field too large, fields too large together: 413 naming the limit', async () => {
    const many = streamPost(
      `${t.base}/search`,
      { 'Content-Type': MULTIPART },
      (function* () {
        for (let i = 0; i < 150; i++) yield* field(`f${i}`, 'x');
        yield* end();
      })(),
    );
    expectRefused(await many, /more than 100 fields \(BODY_MAX_FIELDS\)/);
    const one = await streamPost(
      `${t.base}/search`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('q', { size: 60 * MB });
        yield* end();
      })(),
    );
    // Before the token is known only 512 KB of fields is held; with a valid token in a header, BODY_MAX_MB.
    expectRefused(one, /0.5 MB before the token; send the token/);
    expect(one.sent).toBeLessThan(30 * MB);
    const known = await streamPost(
      `${t.base}/search`,
      { 'Content-Type': MULTIPART, Authorization: `Bearer ${owner.token}` },
      (function* () {
        yield* field('q', { size: 60 * MB });
        yield* end();
      })(),
    );
    expectRefused(known, /BODY_MAX_MB/);
    expect(known.sent).toBeLessThan(40 * MB);
    const several = await streamPost(
      `${t.base}/content/users/${owner.username}/addItem?token=${owner.token}`,
      { 'Content-Type': MULTIPART },
      (function* () {
        for (let i = 0; i < 6; i++) yield* field(`f${i}`, { size: 3 * MB });
        yield* end();
      })(),
    );
    expectRefused(several, /BODY_MAX_MB/);
  });

  it('a file part on an operation that takes none is refused before it is written', async () => {
    const r = await streamPost(
      `${t.base}/search?token=${owner.token}`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('f', 'json');
        yield* file('file', 'a.bin', 200 * MB);
        yield* end();
      })(),
    );
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ code: 400, message: 'Too many files.' });
    expect(r.sent).toBeLessThan(60 * MB);
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
  });

  it('an invalid token in the query or in a field before the file: 498 before the file is read or written', async () => {
    for (const [query, before] of [
      ['?token=not-a-token', []],
      ['', ['token', 'not-a-token']],
    ] as const) {
      const r = await streamPost(
        `${t.base}/content/users/${owner.username}/addItem${query}`,
        { 'Content-Type': MULTIPART },
        (function* () {
          yield* field('f', 'json');
          if (before.length) yield* field(before[0], before[1]);
          yield* file('file', 'a.csv', 200 * MB);
          yield* end();
        })(),
      );
      expect(r.body.error.code).toBe(498);
      expect(r.sent).toBeLessThan(60 * MB);
    }
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
  });

  it('an anonymous file (no token anywhere) is deleted, never adopted, and the reply is 499', async () => {
    const r = await streamPost(
      `${t.base}/content/users/${owner.username}/addItem`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('title', 'x');
        yield* field('type', 'CSV');
        yield* file('file', 'a.csv', 3 * MB);
        yield* field('f', 'json');
        yield* end();
      })(),
    );
    expect(r.body.error.code).toBe(499);
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
    expect(existsSync(path.join(t.config.dataDir, 'items')) ? readdirSync(path.join(t.config.dataDir, 'items')) : []).toEqual([]);
  });

  it('authenticated uploads of a few MB still work with the token in a header, before the file, or after it', async () => {
    const cases: [string, Record<string, string>, 'before' | 'after' | 'none'][] = [
      ['header', { Authorization: `Bearer ${owner.token}` }, 'none'],
      ['field before the file', {}, 'before'],
      ['field after the file (arcgis-rest-js order)', {}, 'after'],
    ];
    for (const [name, headers, where] of cases) {
      const r = await streamPost(
        `${t.base}/content/users/${owner.username}/addItem`,
        { 'Content-Type': MULTIPART, ...headers },
        (function* () {
          yield* field('f', 'json');
          yield* field('title', `upload ${name}`);
          yield* field('type', 'CSV');
          if (where === 'before') yield* field('token', owner.token);
          yield* file('file', 'big.csv', 4 * MB);
          yield* field('filename', 'big.csv');
          if (where === 'after') yield* field('token', owner.token);
          yield* end();
        })(),
      );
      expect({ name, body: r.body }).toMatchObject({ name, body: { success: true } });
      const data = await fetch(`${t.base}/content/items/${r.body.id}/data?token=${owner.token}`);
      expect((await data.arrayBuffer()).byteLength).toBe(4 * MB);
    }
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
  });

  it('fields after a token field are not read while the token is checked (the check holds the body, busboy cannot resume it)', async () => {
    // The token store is held up by a lock on its table, so the in-body check stays pending for 2 s.
    const qr = t.db.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    await qr.query('LOCK TABLE tokens IN ACCESS EXCLUSIVE MODE');
    const released = new Promise((r) => setTimeout(r, 2000)).then(() => qr.rollbackTransaction()).finally(() => qr.release());
    const r = await streamPost(
      `${t.base}/search`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('token', 'not-a-token');
        yield* field('q', { size: 200 * MB });
        yield* end();
      })(),
    );
    await released;
    expectRefused(r, /0.5 MB before the token/);
    // Only what the kernel's socket buffers take gets sent; read during the check, it was all 200 MB.
    expect(r.sent).toBeLessThan(40 * MB);
  });
});

describe('uploads the client abandons', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  it('a connection dropped mid-file leaves no open descriptor and no temp file behind', async () => {
    const u = new URL(t.base);
    const head = [...field('title', 'x')].join('') + [...file('file', 'a.csv', 0)][0];
    for (let i = 0; i < 5; i++) {
      // Anonymous, file first: spooled under UPLOAD_BEFORE_TOKEN_MB until a token would arrive; it never does.
      const socket = net.connect(Number(u.port), '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.write(
        `POST ${u.pathname}/content/users/admin/addItem HTTP/1.1\r\nHost: x\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${200 * MB}\r\n\r\n`,
      );
      socket.write(head);
      for (let sent = 0; sent < 3 * MB; sent += 256 * 1024) socket.write(Buffer.alloc(256 * 1024, 'f'));
      // The file is being written (earlier ones were unlinked when their response closed, so they read "(deleted)").
      expect(await waitFor(() => tmpDescriptors(t.config.dataDir).some((f) => !f.endsWith('(deleted)')), 5000)).toBe(true);
      socket.destroy();
    }
    expect(await waitFor(() => tmpDescriptors(t.config.dataDir).length === 0, 2000)).toBe(true);
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
    // The spool budget was given back: a signed-in upload still works.
    const token = await adminToken(t.base);
    const r = await streamPost(
      `${t.base}/content/users/admin/addItem?token=${token}`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('f', 'json');
        yield* field('title', 'after aborts');
        yield* field('type', 'CSV');
        yield* file('file', 'a.csv', MB);
        yield* end();
      })(),
    );
    expect(r.body).toMatchObject({ success: true });
  });
});

describe('compressed request bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  it('a gzip form, JSON or multipart body is refused unread with an envelope naming Content-Encoding', async () => {
    // 9 KB on the wire, a 9 MB field once inflated: its memory hold would be sized from the 9 KB.
    const bomb = gzipSync(`f=json&q=${'a'.repeat(9 * MB)}`);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const cases: [string, string, Buffer][] = [
      ['search', 'application/x-www-form-urlencoded', bomb],
      ['search', 'application/json', gzipSync(JSON.stringify({ f: 'json', q: 'a'.repeat(9 * MB) }))],
      [`content/users/admin/addItem`, MULTIPART, gzipSync([...field('f', 'json'), ...end()].join(''))],
    ];
    for (const [op, type, body] of cases) {
      const r = await streamPost(`${t.base}/${op}`, { 'Content-Type': type, 'Content-Encoding': 'gzip' }, [body]);
      expect({ type, status: r.status, error: r.body?.error }).toMatchObject({
        type,
        status: 200,
        error: { code: 415, details: [expect.stringMatching(/Content-Encoding: gzip/)] },
      });
    }
    // Identity is what every client sends, spelled out or not.
    const plain = await streamPost(
      `${t.base}/search`,
      { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'identity' },
      ['f=json&q=x'],
    );
    expect(plain.body).toMatchObject({ total: expect.any(Number) });
  });
});

describe('files sent before any token are bounded process-wide (UPLOAD_BEFORE_TOKEN_MB)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ UPLOAD_BEFORE_TOKEN_MB: '2' });
  });
  afterAll(() => t?.close());

  it('a file past the budget before its token is cut with a 413 that says how to send the token first', async () => {
    const r = await streamPost(
      `${t.base}/content/users/admin/addItem`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('title', 'x');
        yield* file('file', 'a.csv', 100 * MB);
        yield* field('token', 'whatever');
        yield* end();
      })(),
    );
    expectRefused(r, /UPLOAD_BEFORE_TOKEN_MB.*before the file/);
    expect(r.sent).toBeLessThan(40 * MB);
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
  });
});

describe('an anonymous multipart flood against a separate API process', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    api = await spawnApi({ LOG_LEVEL: 'warn' });
  }, 90_000);
  afterAll(() => api?.stop());

  it('keeps RSS growth under 50 MB, answers every request with 413 or an envelope, and leaves no temp file', async () => {
    const bigFields = (target: string) =>
      streamPost(
        `${api.base}/${target}`,
        { 'Content-Type': MULTIPART },
        (function* () {
          for (let i = 0; i < 90; i++) yield* field(`field${i}`, { size: 4 * MB });
          yield* file('file', 'big.bin', 200 * MB);
          yield* end();
        })(),
      );
    const fileThenFields = () =>
      streamPost(
        `${api.base}/content/users/admin/addItem`,
        { 'Content-Type': MULTIPART },
        (function* () {
          yield* field('title', 'x');
          yield* file('file', 'big.bin', 3 * MB);
          for (let i = 0; i < 50; i++) yield* field(`after${i}`, { size: MB });
          yield* end();
        })(),
      );
    const anonymousFile = () =>
      streamPost(
        `${api.base}/content/users/admin/addItem`,
        { 'Content-Type': MULTIPART },
        (function* () {
          yield* field('title', 'x');
          yield* field('type', 'CSV');
          yield* file('file', 'a.csv', 3 * MB);
          yield* end();
        })(),
      );
    // Warm-up: each kind of request once, so one-time costs (compiled code, pools, buffers) are in the baseline.
    await Promise.all([bigFields('search'), bigFields('content/users/admin/addItem'), fileThenFields(), anonymousFile()]);
    await settle();
    const baseline = api.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, api.rss())), 25);

    const flood = [
      ...Array.from({ length: 12 }, () => bigFields('search')),
      ...Array.from({ length: 12 }, () => bigFields('content/users/admin/addItem')),
      ...Array.from({ length: 8 }, fileThenFields),
      ...Array.from({ length: 4 }, anonymousFile),
    ];
    const replies = await Promise.all(flood);
    clearInterval(sampler);

    for (const r of replies.slice(0, 32)) expectRefused(r, /BODY_MAX_MB|before the token|after the file/);
    for (const r of replies.slice(32)) expect(r.body.error.code).toBe(499);
    const growth = peak - baseline;
    console.log(
      `flood: RSS baseline ${(baseline / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, growth ${(growth / MB).toFixed(1)} MB`,
    );
    expect(growth).toBeLessThan(50 * MB);
    await settle();
    expect(tmpFiles(api.dataDir)).toEqual([]);
    // Still serving.
    const ok = await fetch(`${api.base}/search?f=json&q=x`);
    expect(((await ok.json()) as { total: number }).total).toBeGreaterThanOrEqual(0);
  }, 120_000);
});

describe('Expect: 100-continue', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  /** The raw reply, and whether an interim 100 Continue came before it (the body is sent only after one). */
  async function expectContinue(pathAndQuery: string, contentType: string, length: number, bodyStart: string) {
    const u = new URL(t.base);
    const socket = net.connect(Number(u.port), '127.0.0.1');
    socket.write(
      `POST ${u.pathname}/${pathAndQuery} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    let raw = '';
    let interim = false;
    socket.on('data', (d) => {
      raw += d;
      if (!interim && /^HTTP\/1.1 100[^\r]*\r\n\r\n/.test(raw)) {
        interim = true;
        socket.write(bodyStart);
      }
    });
    await new Promise((r) => socket.on('close', r));
    return { raw, interim, reply: raw.replace(/^HTTP\/1.1 100[^\r]*\r\n\r\n/, '') };
  }

  it('an oversized body is refused with 413 instead of a 100 Continue, so it is never sent', async () => {
    const r = await expectContinue('search', 'application/x-www-form-urlencoded', 2_000_000_000, 'f=json');
    expect(r.interim).toBe(false);
    expect(r.raw).toMatch(/^HTTP\/1.1 413/);
  });

  it('a body within the limits gets its 100 Continue and is served', async () => {
    const body = 'f=json&q=x';
    const r = await expectContinue('search', 'application/x-www-form-urlencoded', body.length, body);
    expect(r.interim).toBe(true);
    expect(r.reply).toMatch(/^HTTP\/1.1 200/);
    expect(r.reply).toMatch(/"total":/);
  });
});

describe('files before the token: each address keeps its share, and a stalled body lets go (UPLOAD_IDLE_S)', () => {
  let t: TestApp;
  let token: string;
  const REFERER = 'https://app.example.org';
  beforeAll(async () => {
    // 8 MB spool, so 2 MB guaranteed per address; a body quiet for 2 s is cut.
    t = await startApp({ UPLOAD_BEFORE_TOKEN_MB: '8', UPLOAD_IDLE_S: '2' });
    // Bound to a referer, not the address: the test's requests claim other addresses through X-Forwarded-For.
    token = (
      await post(t.base, 'generateToken', { username: ADMIN.username, password: ADMIN.password, client: 'referer', referer: REFERER })
    ).body.token;
  });
  const open: net.Socket[] = [];
  afterAll(async () => {
    open.forEach((s) => s.destroy());
    await t?.close();
  });

  /** An anonymous file-first upload from `address` that sends `bytes` of its file, then a byte every 500 ms. */
  async function trickle(address: string, bytes: number, everyMs = 500) {
    const u = new URL(t.base);
    const socket = net.connect(Number(u.port), '127.0.0.1');
    open.push(socket);
    await new Promise((r) => socket.once('connect', r));
    let reply = '';
    socket.on('data', (d) => (reply += d));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now())));
    socket.write(
      `POST ${u.pathname}/content/users/admin/addItem HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address}\r\nContent-Type: ${MULTIPART}\r\nContent-Length: ${200 * MB}\r\n\r\n`,
    );
    socket.write([...field('title', 'x')].join('') + [...file('file', 'a.csv', 0)][0]);
    socket.write(Buffer.alloc(bytes, 'f'));
    const timer = everyMs ? setInterval(() => socket.writable && socket.write('f'), everyMs) : undefined;
    socket.on('close', () => clearInterval(timer));
    return { socket, closed, reply: () => reply, stop: () => (clearInterval(timer), socket.destroy()) };
  }

  it('an address trickling files that fill the spool does not stop an arcgis-rest-js upload from another address', async () => {
    const attacker = await Promise.all([trickle('203.0.113.7', 3.5 * MB), trickle('203.0.113.7', 3.5 * MB)]);
    // The spool is full: a third upload from the same address is refused.
    await settle();
    const third = await streamPost(
      `${t.base}/content/users/admin/addItem`,
      { 'Content-Type': MULTIPART, 'X-Forwarded-For': '203.0.113.7' },
      (function* () {
        yield* field('title', 'x');
        yield* file('file', 'a.csv', 2 * MB);
        yield* end();
      })(),
    );
    expectRefused(third, /UPLOAD_BEFORE_TOKEN_MB/);
    // arcgis-rest-js order (token last) from another address, within its share: served.
    const r = await streamPost(
      `${t.base}/content/users/admin/addItem`,
      { 'Content-Type': MULTIPART, 'X-Forwarded-For': '198.51.100.9', Referer: `${REFERER}/app/` },
      (function* () {
        yield* field('f', 'json');
        yield* field('title', 'while flooded');
        yield* field('type', 'CSV');
        yield* file('file', 'a.csv', Math.floor(1.5 * MB));
        yield* field('token', token);
        yield* end();
      })(),
    );
    expect(r.body).toMatchObject({ success: true });
    // The attacker's uploads past its share were the ones cut.
    expect(attacker.map((a) => a.reply())).toContainEqual(expect.stringMatching(/^HTTP\/1.1 413[^]*other addresses needed/));
    attacker.forEach((a) => a.stop());
    await settle();
  }, 30_000);

  it('an upload whose sender stops sending before its token is cut after UPLOAD_IDLE_S, freeing the spool', async () => {
    const stalled = await trickle('203.0.113.8', 7 * MB, 0);
    const sentAt = Date.now();
    const closedAt = await Promise.race([stalled.closed, new Promise<number>((r) => setTimeout(() => r(0), 8000))]);
    stalled.stop();
    expect(closedAt).toBeGreaterThan(0);
    expect(stalled.reply()).toMatch(/UPLOAD_IDLE_S/);
    expect(closedAt - sentAt).toBeGreaterThanOrEqual(1500);
    expect(stalled.reply()).toMatch(/UPLOAD_IDLE_S/);
    // A trickle that keeps sending is not idle; it is still open after twice the idle time.
    const slow = await trickle('203.0.113.9', MB);
    await new Promise((r) => setTimeout(r, 4500));
    expect(slow.socket.destroyed).toBe(false);
    expect(slow.reply()).toBe('');
    slow.stop();
    // The stalled upload's 7 MB went back: a 5 MB rest-js upload from one address fits again.
    const r = await streamPost(
      `${t.base}/content/users/admin/addItem`,
      { 'Content-Type': MULTIPART, 'X-Forwarded-For': '198.51.100.10', Referer: REFERER },
      (function* () {
        yield* field('f', 'json');
        yield* field('title', 'after the stall');
        yield* field('type', 'CSV');
        yield* file('file', 'a.csv', 5 * MB);
        yield* field('token', token);
        yield* end();
      })(),
    );
    expect(r.body).toMatchObject({ success: true });
  }, 30_000);
});

describe('user thumbnails are bounded by THUMBNAIL_MAX_KB', () => {
  const t = withApp({ users: { me: 'org_user' } });
  const { me } = t.users;

  it('a thumbnail over the limit is refused while it arrives, and nothing is stored', async () => {
    const r = await streamPost(
      `${t.base}/community/users/${me.username}/update?token=${me.token}`,
      { 'Content-Type': MULTIPART },
      (function* () {
        yield* field('f', 'json');
        yield* file('thumbnail', 'big.png', 50 * MB);
        yield* end();
      })(),
    );
    expectRefused(r, /THUMBNAIL_MAX_KB/);
    expect(r.sent).toBeLessThan(20 * MB);
    await settle();
    expect(tmpFiles(t.config.dataDir)).toEqual([]);
    const [{ thumbnail }] = await t.db.query('SELECT thumbnail FROM users WHERE username = $1', [me.username]);
    expect(thumbnail).toBeNull();
  });
});

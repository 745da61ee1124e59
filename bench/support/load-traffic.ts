/**
 * The load benchmark's requests: legitimate traffic (search, item info and data, query pages, share/unshare batches,
 * exports polled and downloaded) and the hostile mix of the hardening issue. Every request is timed to its last
 * byte and classified; the hostile bodies are built once, so the benchmark spends its CPU on sending, not building.
 */
import { request } from 'node:http';
import { MAX_TEXT_COPIES } from '../../src/where/check';
import { boundedWhere, hostileSearch } from '../../test/support/hostile-text';
import { ATTACKER_ITEMS, Fixtures } from './load-fixtures';

/** A request the service has not answered by then counts as unanswered; it bounds every client's loop. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface Sample {
  op: string;
  hostile: boolean;
  ms: number;
  /** ok, `error <code>` (an ArcGIS envelope), `http <status>`, timeout or `no answer (<cause>)`. */
  outcome: string;
  /** HTTP status >= 500 or an envelope whose code is >= 500: what the house rules forbid. */
  fault: boolean;
}

export interface ExportJob {
  jobId: string;
  exportItemId: string;
  format: string;
  /** What the submitting client saw before it stopped polling. */
  seen: 'completed' | 'failed' | 'processing';
  downloaded?: number;
}

export interface Ctx {
  base: string;
  fx: Fixtures;
  samples: Sample[];
  jobs: ExportJob[];
  /** Clients stop starting requests (and stop polling exports) at this time. */
  deadline: number;
  record: boolean;
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  ok: boolean;
  body?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  bytes: number;
}

/** One timed request. JSON bodies are parsed only when small or an envelope: a 2,000-feature page is counted, not parsed. */
async function call(ctx: Ctx, op: string, hostile: boolean, url: string, init: RequestInit = {}): Promise<Answer> {
  return timed(ctx, op, hostile, async () => {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, buf: Buffer.from(await res.arrayBuffer()) };
  });
}

/**
 * A large body sent with node:http in one write: fetch (undici) spent 300 ms of the benchmark's CPU on each 40 MiB
 * body the service refuses after its first megabyte, which the clients' cores took from the service.
 */
function postRaw(ctx: Ctx, op: string, url: string, body: Buffer, type: string): Promise<Answer> {
  return timed(
    ctx,
    op,
    true,
    () =>
      new Promise((resolve, reject) => {
        const headers = { 'content-type': type, 'content-length': body.length };
        const req = request(url, { method: 'POST', headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, buf: Buffer.concat(chunks) }));
          res.on('error', reject);
        });
        // A refusal closes the connection while the body is still going out: the reply, if it came, is what counts.
        req.on('error', reject);
        req.end(body);
      }),
  );
}

async function timed(ctx: Ctx, op: string, hostile: boolean, send: () => Promise<{ status: number; buf: Buffer }>): Promise<Answer> {
  const t0 = performance.now();
  let outcome = 'ok';
  let answer: Answer = { ok: false, bytes: 0 };
  try {
    const { status, buf } = await send();
    const res = { status };
    const head = buf.subarray(0, 16).toString('latin1');
    let body: Answer['body'];
    if (head.startsWith('{"error"') || (buf.length < 65_536 && head.startsWith('{'))) {
      try {
        body = JSON.parse(buf.toString('utf8'));
      } catch {
        outcome = 'unparsable reply';
      }
    }
    if (res.status >= 300) outcome = `http ${res.status}`;
    else if (body?.error) outcome = `error ${body.error.code}`;
    answer = { ok: outcome === 'ok', body, bytes: buf.length };
  } catch (e) {
    outcome = noAnswer(e);
  }
  const fault = /^(http|error) 5\d\d$/.test(outcome);
  if (ctx.record) ctx.samples.push({ op, hostile, ms: performance.now() - t0, outcome, fault });
  return answer;
}

/** `timeout`, or `no answer (<cause>)`: a reset after a refusal reads differently from a refused connection. */
export function noAnswer(e: unknown): string {
  if ((e as Error).name === 'TimeoutError') return 'timeout';
  const cause = (e as { cause?: { code?: string } }).cause;
  return `no answer (${cause?.code ?? (e as Error).message})`;
}

const formBody = (params: Record<string, string>) => new URLSearchParams({ f: 'json', ...params });
const get = (ctx: Ctx, op: string, path: string, params: Record<string, string>, hostile = false, headers: Record<string, string> = {}) =>
  call(ctx, op, hostile, `${path.startsWith('http') ? path : `${ctx.base}/${path}`}?${formBody(params)}`, { headers });
const post = (ctx: Ctx, op: string, path: string, params: Record<string, string>, hostile = false, headers: Record<string, string> = {}) =>
  call(ctx, op, hostile, path.startsWith('http') ? path : `${ctx.base}/${path}`, { method: 'POST', body: formBody(params), headers });

/** The operation whose p99 under attack is a target of its own (bench/load.bench.ts). */
export const SIGN_IN = 'sign-in';

/** A body encoded once: URL-encoding a 10 MiB password per request would spend the benchmark's CPU, not the service's. */
const encoded = (params: Record<string, string>) => Buffer.from(formBody(params).toString());
const postEncoded = (ctx: Ctx, op: string, url: string, body: Buffer) => postRaw(ctx, op, url, body, 'application/x-www-form-urlencoded');

export type Op = (ctx: Ctx, client: number) => Promise<void>;

const userOf = (ctx: Ctx, client: number) => ctx.fx.users[client % ctx.fx.users.length];

/**
 * Legitimate operations and their weights (relative frequency), roughly a portal's read-mostly mix. Sign-in comes from
 * an address of each client's own (X-Forwarded-For, which the API believes from loopback): every client here shares
 * 127.0.0.1 with the attacker, whose wrong passwords rightly get that address throttled.
 */
export const LEGIT: [weight: number, op: Op][] = [
  // Twice as often as a portal sees it, so its p99 (a target of its own) rests on some 30 samples per run, not 15.
  [
    2,
    async (ctx, client) => {
      const u = userOf(ctx, client);
      const params = { username: u.username, password: u.password, client: 'requestip', expiration: '5' };
      await post(ctx, SIGN_IN, 'generateToken', params, false, { 'x-forwarded-for': `10.0.${client >> 8}.${client & 255}` });
    },
  ],
  [
    20,
    async (ctx, client) => {
      const u = userOf(ctx, client);
      const q = pick([
        `tags:${pick(['parks', 'roads', 'rivers', 'schools', 'trees'])}`,
        `owner:${pick(ctx.fx.users).username}`,
        `group:${pick(ctx.fx.groups)}`,
        'title:Map*',
        'parks OR rivers',
      ]);
      await get(ctx, 'search', 'search', { q, num: '20', sortField: 'title', token: u.token });
    },
  ],
  [
    20,
    async (ctx, client) => {
      const u = userOf(ctx, client);
      await get(ctx, 'item info', `content/items/${pick(u.items)}`, { token: u.token });
    },
  ],
  [
    15,
    async (ctx, client) => {
      const u = userOf(ctx, client);
      await get(ctx, 'item data', `content/items/${pick(u.items)}/data`, { token: u.token });
    },
  ],
  [
    15,
    async (ctx, client) => {
      const pages = ctx.fx.service.points / 2000;
      await get(ctx, 'query page (2,000)', `${ctx.fx.service.url}/0/query`, {
        where: '1=1',
        outFields: '*',
        orderByFields: 'OBJECTID',
        resultRecordCount: '2000',
        resultOffset: String(Math.floor(Math.random() * pages) * 2000),
        token: userOf(ctx, client).token,
      });
    },
  ],
  [
    5,
    async (ctx, client) => {
      const u = userOf(ctx, client);
      const start = Math.floor(Math.random() * (u.items.length - 60));
      const batch = {
        items: u.items.slice(start, start + 60).join(','),
        groups: [...ctx.fx.groups]
          .sort(() => Math.random() - 0.5)
          .slice(0, 3)
          .join(','),
        token: u.token,
      };
      await post(ctx, 'shareItems (60 x 3)', `content/users/${u.username}/shareItems`, batch);
      await post(ctx, 'unshareItems (60 x 3)', `content/users/${u.username}/unshareItems`, batch);
    },
  ],
  [4, async (ctx) => exportAndDownload(ctx)],
];

/** An export of a few thousand rows, polled as Hub polls it, then downloaded: the path a user clicking "Download" takes. */
async function exportAndDownload(ctx: Ctx) {
  const p = ctx.fx.publisher;
  const format = pick(['CSV', 'GeoJson', 'Shapefile']);
  const from = 1 + Math.floor(Math.random() * (ctx.fx.service.points - 3000));
  const r = await post(ctx, 'export submit', `content/users/${p.username}/export`, {
    token: p.token,
    itemId: ctx.fx.service.itemId,
    exportFormat: format,
    exportParameters: JSON.stringify({ layers: [{ id: 0, where: `n BETWEEN ${from} AND ${from + 2999}` }] }),
  });
  if (!r.ok || !r.body?.jobId) return;
  const job: ExportJob = { jobId: r.body.jobId, exportItemId: r.body.exportItemId, format, seen: 'processing' };
  ctx.jobs.push(job);
  while (Date.now() < ctx.deadline) {
    await sleep(250);
    const s = await post(ctx, 'export status', `content/users/${p.username}/items/${job.exportItemId}/status`, {
      token: p.token,
      jobId: job.jobId,
      jobType: 'export',
    });
    if (s.body?.status === 'completed' || s.body?.status === 'failed') {
      job.seen = s.body.status;
      break;
    }
  }
  if (job.seen !== 'completed') return;
  const d = await get(ctx, 'export download', `content/items/${job.exportItemId}/data`, { token: p.token });
  if (d.ok) job.downloaded = d.bytes;
}

/**
 * CHAR_LENGTH over CONCATs nested `depth` deep (about 14 bytes a level): PostgreSQL copies the growing string at every
 * level, so each row costs O(depth²) bytes copied. The reported 6 KB clause burned 44 s of CPU on 1M rows.
 */
export function cpuBurningWhere(depth: number): string {
  return `CHAR_LENGTH(${'CONCAT('.repeat(depth)}name${', name)'.repeat(depth)}) > 0`;
}

/** One polygon of `rings` rings: clockwise squares on a grid, each with a counter-clockwise hole inside (ArcGIS ring order). */
function ringBomb(rings: number): string {
  const out: number[][][] = [];
  const side = Math.ceil(Math.sqrt(rings / 2));
  for (let i = 0; out.length < rings; i++) {
    const [x, y] = [(i % side) * 0.01, Math.floor(i / side) * 0.01];
    out.push([
      [x, y],
      [x, y + 0.008],
      [x + 0.008, y + 0.008],
      [x + 0.008, y],
      [x, y],
    ]);
    out.push([
      [x + 0.002, y + 0.002],
      [x + 0.006, y + 0.002],
      [x + 0.006, y + 0.006],
      [x + 0.002, y + 0.006],
      [x + 0.002, y + 0.002],
    ]);
  }
  return JSON.stringify([{ attributes: { label: 'bomb' }, geometry: { rings: out, spatialReference: { wkid: 4326 } } }]);
}

/** Multipart with `fields` text fields of `mb` MiB each, anonymous: what buffered 90 x 60 MB before authentication. */
function multipartBomb(fields: number, mb: number): { body: Buffer; type: string } {
  const boundary = '----loadbench' + Date.now().toString(16);
  const value = Buffer.alloc(mb * 1024 * 1024, 'a');
  const parts: Buffer[] = [];
  for (let i = 0; i < fields; i++) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="field${i}"\r\n\r\n`), value, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"\r\n\r\njson\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** The hostile mix, built once. Each op is one request, sent as an attacker would (anonymous where the finding was). */
export function hostileOps(fx: Fixtures): [weight: number, op: Op][] {
  const multipart = multipartBomb(40, 1);
  const longPassword = encoded({ username: fx.users[2].username, password: 'p'.repeat(10 * 1024 * 1024), client: 'requestip' });
  const bomb = encoded({ features: ringBomb(20_000), token: fx.publisher.token });
  const burn = cpuBurningWhere(Number(process.env.LOAD_BURN_DEPTH ?? 400));
  const concat = `CONCAT(${Array.from({ length: 1000 }, () => 'name').join(', ')}) = 'x'`;
  const bounded = boundedWhere('name', MAX_TEXT_COPIES);
  const search = hostileSearch();
  return [
    [
      1,
      async (ctx) => {
        const params = { q: search, num: '100', token: ctx.fx.attacker.token };
        await get(ctx, `search, 32 terms over ${ATTACKER_ITEMS} x 64,000-character descriptions`, 'search', params, true);
      },
    ],
    [
      1,
      async (ctx) => {
        await post(
          ctx,
          `query, where at the string bound (${bounded.length} B), anonymous`,
          `${ctx.fx.service.url}/0/query`,
          { where: bounded, returnCountOnly: 'true' },
          true,
        );
      },
    ],
    [
      1,
      async (ctx) => {
        await postRaw(ctx, 'multipart 40 x 1 MiB fields, anonymous', `${ctx.base}/search`, multipart.body, multipart.type);
      },
    ],
    [1, async (ctx) => void (await postEncoded(ctx, 'generateToken, 10 MiB password', `${ctx.base}/generateToken`, longPassword))],
    // A flood is many cheap requests: this one comes three times as often as each other kind.
    [
      3,
      async (ctx) => {
        const params = { username: ctx.fx.victim, password: `wrong-${Math.random()}`, client: 'requestip' };
        await post(ctx, 'generateToken, wrong password (one user)', 'generateToken', params, true);
      },
    ],
    [
      1,
      async (ctx) => {
        await post(
          ctx,
          `query, CPU-burning where (${burn.length} B), anonymous`,
          `${ctx.fx.service.url}/0/query`,
          { where: burn, returnCountOnly: 'true' },
          true,
        );
      },
    ],
    [
      1,
      async (ctx) => {
        await postEncoded(
          ctx,
          `addFeatures, polygon of 20,000 rings (${(bomb.length / 1048576).toFixed(1)} MiB)`,
          `${ctx.fx.service.url}/1/addFeatures`,
          bomb,
        );
      },
    ],
    [
      1,
      async (ctx) => {
        await post(
          ctx,
          'query, CONCAT of 1,000 arguments, anonymous',
          `${ctx.fx.service.url}/0/query`,
          { where: concat, returnCountOnly: 'true' },
          true,
        );
      },
    ],
    [
      1,
      async (ctx) => {
        const owner = ctx.fx.users[1];
        await get(ctx, 'token from another referer', `content/items/${pick(owner.items)}`, { token: ctx.fx.refererToken }, true, {
          referer: 'https://evil.example.net/',
        });
      },
    ],
  ];
}

export function weighted(ops: [number, Op][]): () => Op {
  const total = ops.reduce((s, [w]) => s + w, 0);
  return () => {
    let r = Math.random() * total;
    for (const [w, op] of ops) if ((r -= w) < 0) return op;
    return ops[ops.length - 1][1];
  };
}

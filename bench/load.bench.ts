/**
 * Load with and without hostile traffic: LOAD_CLIENTS closed-loop clients for LOAD_SECONDS against the built API
 * and two workers (separate processes, loopback only, scratch database and queue prefix): legitimate traffic only, and
 * traffic with a LOAD_HOSTILE share of the hardening issue's hostile requests mixed in, in LOAD_SEGMENTS alternating
 * segments per side (clean, hostile, hostile, clean, ...) so that drift over the run (a growing database, a busy
 * machine) falls on both sides alike. Prints p50/p99 per operation over each side's pooled samples, the 5xx count and
 * the export jobs' fate as Markdown, then the targets; exits 1 when a target fails.
 *
 *   npm run bench:load                                   (LOAD_SECONDS=60 LOAD_CLIENTS=50 LOAD_HOSTILE=0.1)
 *   LOAD_SECONDS=10 LOAD_CLIENTS=10 npm run bench:load   (a quick trial)
 */
import { addCpu, cpuSnapshot, CpuSnapshot } from './support/cpu-meter';
import { startCluster, Cluster } from './support/load-cluster';
import { makeFixtures } from './support/load-fixtures';
import { hostileTable, legitTable, loggedErrors } from './support/load-report';
import { Ctx, ExportJob, hostileOps, LEGIT, noAnswer, Op, Sample, SIGN_IN, weighted } from './support/load-traffic';

function setting(name: string, fallback: number, min: number, max: number): number {
  const v = process.env[name] === undefined || process.env[name] === '' ? fallback : Number(process.env[name]);
  if (!Number.isFinite(v) || v < min || v > max) throw new Error(`${name} must be a number from ${min} to ${max}`);
  return v;
}
const SECONDS = setting('LOAD_SECONDS', 60, 1, 3600);
const CLIENTS = Math.round(setting('LOAD_CLIENTS', 50, 1, 500));
const HOSTILE = setting('LOAD_HOSTILE', 0.1, 0, 0.9);
const SEGMENTS = Math.round(setting('LOAD_SEGMENTS', 4, 1, 60));
/** Every export submitted must be completed or failed this long after the last run ends. */
const GRACE_SECONDS = 60;
/** Unmeasured legitimate traffic first, so the clean run is not charged for a cold JIT and empty caches. */
const WARMUP_SECONDS = Math.min(5, Math.ceil(SECONDS / 4));
/** A bound on each client's loop besides time (far above what a client reaches). */
const MAX_REQUESTS_PER_CLIENT = SECONDS * 500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: Cluster | undefined;
let interrupted = false;

async function run(c: Cluster, fx: Ctx['fx'], seconds: number, hostileShare: number, hostile: [number, Op][] | undefined, record = true) {
  const ctx: Ctx = { base: c.base, fx, samples: [], jobs: [], deadline: Date.now() + seconds * 1000, record };
  const legit = weighted(LEGIT);
  const bad = hostile ? weighted(hostile) : undefined;
  const t0 = Date.now();
  await Promise.all([
    probeHealth(c, ctx),
    ...Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; n < MAX_REQUESTS_PER_CLIENT && Date.now() < ctx.deadline && !interrupted; n++) {
        const op = bad && Math.random() < hostileShare ? bad() : legit();
        await op(ctx, client);
      }
    }),
  ]);
  return { ...ctx, wall: (Date.now() - t0) / 1000 };
}

/** Waits until no export job is queued or processing, or the time is up; returns the rows. */
async function settle(c: Cluster, seconds: number) {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const { rows } = await c.db.query<{ id: string; status: string; status_message: string }>(
      `SELECT id, status, status_message FROM jobs WHERE type = 'export'`,
    );
    if (!rows.some((r) => r.status === 'queued' || r.status === 'processing') || Date.now() > until || interrupted) return rows;
    await sleep(500);
  }
}

/**
 * A completed export must have its file: the ones no client downloaded in time are fetched now, once the API answers
 * again. Returns how many were answered without a file, and how many got no answer at all (the API still stalled).
 */
async function verifyDownloads(c: Cluster, fx: Ctx['fx'], jobs: ExportJob[], done: Set<string>, until: number) {
  const todo = jobs.filter((j) => done.has(j.jobId) && j.downloaded === undefined);
  while (
    todo.length &&
    Date.now() < until &&
    !(await fetch(`${c.root}/health`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await sleep(1000);
  let missing = 0;
  let unanswered = 0;
  for (const j of todo) {
    try {
      const res = await fetch(`${c.base}/content/items/${j.exportItemId}/data?token=${fx.publisher.token}`, {
        signal: AbortSignal.timeout(30_000),
      });
      const buf = Buffer.from(await res.arrayBuffer());
      if (res.status === 200 && buf.length > 0 && !buf.subarray(0, 9).toString().startsWith('{"error"')) j.downloaded = buf.length;
      else missing++;
    } catch {
      unanswered++;
    }
  }
  return { missing, unanswered };
}

/** GET /health once a second while a run lasts: how long the API's event loop and pools keep a trivial request waiting. */
async function probeHealth(c: Cluster, ctx: Ctx) {
  while (Date.now() < ctx.deadline && !interrupted) {
    const t0 = performance.now();
    let outcome = 'ok';
    try {
      const res = await fetch(`${c.root}/health`, { signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      if (res.status !== 200) outcome = `http ${res.status}`;
    } catch (e) {
      outcome = noAnswer(e);
    }
    const ms = performance.now() - t0;
    if (ctx.record) ctx.samples.push({ op: 'GET /health (probe, 1/s)', hostile: false, ms, outcome, fault: /^http 5/.test(outcome) });
    await sleep(Math.max(0, 1000 - ms));
  }
}

async function main() {
  const onSignal = (sig: string) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${sig}: stopping the clients and cleaning up (again to leave at once)`);
    void (cluster?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  const t0 = Date.now();
  cluster = await startCluster();
  const c = cluster;
  const fx = await makeFixtures(c);
  const ready = ((Date.now() - t0) / 1000).toFixed(1);
  console.error(
    `[load] cluster and data ready in ${ready} s (${fx.service.points.toLocaleString('en')} points); warming up ${WARMUP_SECONDS} s`,
  );
  await run(c, fx, WARMUP_SECONDS, 0, undefined, false);
  await settle(c, GRACE_SECONDS);
  const hostile = hostileOps(fx);
  const clean = { samples: [] as Sample[], jobs: [] as ExportJob[], wall: 0, cpu: {} as CpuSnapshot };
  const mixed = { samples: [] as Sample[], jobs: [] as ExportJob[], wall: 0, cpu: {} as CpuSnapshot };
  const pids = Object.fromEntries(c.processes.map((p) => [p.name, p.proc.pid]));
  const segment = SECONDS / SEGMENTS;
  // ABBA order: a trend over the run (rows and jobs piling up, a neighbour's load) weighs on both sides alike.
  for (let i = 0; i < 2 * SEGMENTS && !interrupted; i++) {
    const bad = (i % 4 === 1 || i % 4 === 2) && HOSTILE > 0;
    console.error(
      `[load] segment ${i + 1}/${2 * SEGMENTS}: ${bad ? `${Math.round(HOSTILE * 100)}% hostile` : 'clean'}, ${CLIENTS} clients, ${segment.toFixed(0)} s`,
    );
    const cpu0 = cpuSnapshot(pids);
    const r = await run(c, fx, segment, bad ? HOSTILE : 0, bad ? hostile : undefined);
    const side = bad ? mixed : clean;
    addCpu(side.cpu, cpu0, cpuSnapshot(pids));
    side.samples.push(...r.samples);
    side.jobs.push(...r.jobs);
    side.wall += r.wall;
    await settle(c, GRACE_SECONDS); // every segment starts with an empty queue
  }
  if (interrupted) return 130;
  console.error(`[load] waiting up to ${GRACE_SECONDS} s for the export jobs to finish`);
  const graceEnd = Date.now() + GRACE_SECONDS * 1000;
  const rows = await settle(c, GRACE_SECONDS);

  const status = new Map(rows.map((r) => [r.id, r]));
  const jobs = [...clean.jobs, ...mixed.jobs];
  const lost = jobs.filter((j) => !status.has(j.jobId));
  const stuck = rows.filter((r) => r.status !== 'completed' && r.status !== 'failed');
  const failed = rows.filter((r) => r.status === 'failed');
  const completed = new Set(rows.filter((r) => r.status === 'completed').map((r) => r.id));
  const files = await verifyDownloads(c, fx, jobs, completed, graceEnd);

  const phased = (run: Sample[], phase: string) => run.map((s) => ({ ...s, phase }));
  const all = [...phased(clean.samples, 'clean'), ...phased(mixed.samples, 'with hostile')];
  const faults = all.filter((s) => s.fault);
  const unanswered = all.filter((s) => !s.hostile && (s.outcome === 'timeout' || s.outcome.startsWith('no answer')));
  const refused = all.filter((s) => !s.hostile && s.outcome !== 'ok' && !unanswered.includes(s));
  /** `search, clean run: timeout ×3; ...`: which requests, in which run, ended how. */
  const tally = (xs: typeof all) => {
    const m = new Map<string, number>();
    for (const s of xs) m.set(`${s.op}, ${s.phase}: ${s.outcome}`, (m.get(`${s.op}, ${s.phase}: ${s.outcome}`) ?? 0) + 1);
    return [...m].map(([k, n]) => `${k} ×${n}`).join('; ');
  };
  const legit = legitTable(clean.samples, mixed.samples);
  const ratio = legit.all.hostile.p99 / legit.all.clean.p99;
  const signIns = legitTable(
    clean.samples.filter((s) => s.op === SIGN_IN),
    mixed.samples.filter((s) => s.op === SIGN_IN),
  ).all;
  const signInRatio = signIns.hostile.p99 / signIns.clean.p99;
  const rate = (r: { samples: Sample[]; wall: number }) => (r.samples.length / r.wall).toFixed(0);
  const peaks = c.peakRss();
  const exited = c.exited();

  const out: string[] = [];
  out.push(
    `### Load: ${CLIENTS} clients, ${SECONDS} s clean and ${SECONDS} s with ${Math.round(HOSTILE * 100)}% hostile requests, in ${SEGMENTS} alternating segments each`,
    '',
  );
  const hostileCount = mixed.samples.filter((s) => s.hostile).length;
  out.push(
    `Requests: clean ${clean.samples.length} (${rate(clean)}/s), with hostile ${mixed.samples.length} (${rate(mixed)}/s, ${hostileCount} hostile).`,
    '',
  );
  out.push(...legit.lines, '');
  if (HOSTILE > 0) {
    out.push(...hostileTable(mixed.samples), '');
    out.push(
      'A hostile body over a limit may read as `no answer (...)`: the service answered 413 and closed the connection',
      'while the client was still sending, as it should.',
      '',
    );
  }
  out.push('| Export jobs | clean run | with hostile |', '|---|---|---|');
  const jobRow = (label: string, f: (j: ExportJob) => boolean) =>
    `| ${label} | ${clean.jobs.filter(f).length} | ${mixed.jobs.filter(f).length} |`;
  out.push(jobRow('submitted (answered with a jobId)', () => true));
  out.push(jobRow('completed', (j) => completed.has(j.jobId)));
  out.push(jobRow('completed and downloaded', (j) => completed.has(j.jobId) && j.downloaded !== undefined));
  out.push(jobRow('failed', (j) => status.get(j.jobId)?.status === 'failed'));
  out.push(
    jobRow(`stuck after ${GRACE_SECONDS} s grace, or lost`, (j) => !completed.has(j.jobId) && status.get(j.jobId)?.status !== 'failed'),
    '',
  );
  const cores = (r: typeof clean) =>
    Object.entries(r.cpu)
      .map(([k, v]) => `${k} ${(v / 1000 / r.wall).toFixed(2)}`)
      .join(', ');
  out.push(`Cores busy on average (idle: both cores' idle time): clean ${cores(clean)}; with hostile ${cores(mixed)}.`, '');
  out.push(
    `Peak RSS: ${Object.entries(peaks)
      .map(([k, v]) => `${k} ${v.toFixed(0)} MB`)
      .join(', ')}.`,
  );
  for (const p of c.processes) {
    const errors = loggedErrors(p.log);
    if (errors.length) out.push('', `Errors logged by ${p.name}:`, ...errors.map((e) => `- ${e}`));
  }
  console.log(out.join('\n'));

  const targets: [boolean, string][] = [
    [faults.length === 0, `zero 5xx: ${faults.length}${faults.length ? ` (${tally(faults)})` : ''}`],
    [
      unanswered.length === 0 && refused.length === 0 && exited.length === 0,
      `every legitimate request answered within 30 s without an error, every process up: ${unanswered.length} unanswered, ${refused.length} errors` +
        `${unanswered.length + refused.length ? ` (${tally([...unanswered, ...refused])})` : ''}${exited.length ? `; ${exited.join(', ')}` : ''}`,
    ],
    [
      lost.length === 0 && stuck.length === 0,
      `zero lost or stuck export jobs: ${lost.length} lost, ${stuck.length} stuck of ${rows.length} (${jobs.length} answered submissions)`,
    ],
    [
      failed.length === 0 && files.missing === 0 && files.unanswered === 0,
      `every legitimate export completed with its file: ${failed.length} failed${failed.length ? ` (${failed[0].status_message.slice(0, 100)})` : ''}, ` +
        `${files.missing} completed without a downloadable file, ${files.unanswered} downloads unanswered after the grace period`,
    ],
    [
      ratio <= 2,
      `legitimate p99 with hostile traffic within 2x of the clean run: ${legit.all.hostile.p99.toFixed(0)} ms / ${legit.all.clean.p99.toFixed(0)} ms = ${ratio.toFixed(2)}`,
    ],
    [
      signInRatio <= 2,
      `sign-in p99 with hostile traffic within 2x of the clean run: ${signIns.hostile.p99.toFixed(0)} ms / ${signIns.clean.p99.toFixed(0)} ms = ${signInRatio.toFixed(2)}`,
    ],
  ];
  console.log(['', 'Targets:', ...targets.map(([ok, text]) => `- ${ok ? 'PASS' : 'FAIL'} ${text}`)].join('\n'));
  return targets.every(([ok]) => ok) ? 0 : 1;
}

main()
  .then(
    (code) => code,
    (e) => {
      if (interrupted) return 130; // requests cut short by the clean-up, not a finding
      console.error(e);
      return 1;
    },
  )
  .then(async (code) => {
    await cluster?.close();
    process.exit(interrupted ? 130 : code);
  });

/**
 * The job runner, through a job kind declared here as any feature declares one (a contract and a handler), run by
 * the real runner on the real database and Redis: stored parameters re-checked by the kind's spec, throttled
 * progress, cancellation as an AbortSignal, permanent versus transient failures, and a file adopted by the result item.
 */
import { DynamicModule, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue, QueueEvents } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ContentRepository } from '../../src/content/content.repository';
import { CoreModule } from '../../src/core/core.module';
import { InvalidInputError } from '../../src/core/errors/invalid-input';
import { newId } from '../../src/core/ids';
import { defineJob, JobContext, JobHandler, JobOutcome } from '../../src/core/jobs/job-contract';
import { bullConnection, JobQueueService } from '../../src/core/jobs/job-queue.service';
import { JobRunner } from '../../src/core/jobs/job-runner';
import { jobsTempDir, JobsService } from '../../src/core/jobs/jobs.service';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';
import { startApp, TestApp } from '../support/app';

type Mode = 'file' | 'progress' | 'cancel' | 'user-error' | 'flaky' | 'unknown-error' | 'refused-at-hand-over';
interface Params {
  mode: Mode;
}

class UserError extends Error {}

/** What each run of the handler saw, by job id, for the assertions. */
const seen = new Map<string, { attempts: number[]; aborted?: number; workDir?: string; storedWhenConfirming?: boolean }>();
/** The item files' folder of the app under test (set once it starts). */
let dataDir = '';

const QUEUE = `runner-test-${randomBytes(4).toString('hex')}`;

const RunnerTestJob = defineJob<Params>({
  type: 'runner-test',
  queue: QUEUE,
  params: (raw) => {
    const mode = (raw as { mode?: unknown })?.mode;
    if (!['file', 'progress', 'cancel', 'user-error', 'flaky', 'unknown-error', 'refused-at-hand-over'].includes(mode as string))
      throw new InvalidInputError(`Unknown mode '${String(mode)}'.`);
    return { mode: mode as Mode };
  },
  cancelPollMs: 200,
  permanent: (e) => e instanceof UserError,
  handler: () => RunnerTestHandler,
});

@Injectable()
class RunnerTestHandler implements JobHandler<Params> {
  async run(p: Params, ctx: JobContext): Promise<JobOutcome> {
    const s = seen.get(ctx.jobId) ?? { attempts: [] };
    seen.set(ctx.jobId, s);
    s.attempts.push(ctx.attempt);
    s.workDir = await ctx.workDir();
    switch (p.mode) {
      case 'file': {
        const file = path.join(s.workDir, 'out.txt');
        await fs.writeFile(file, 'hello');
        return { file: { path: file, fileName: 'result.txt', contentType: 'text/plain', size: 5 } };
      }
      case 'refused-at-hand-over': {
        const file = path.join(s.workDir, 'out.txt');
        await fs.writeFile(file, 'secret');
        const confirm = async () => {
          s.storedWhenConfirming = existsSync(path.join(dataDir, 'items', ctx.resultItemId!, 'result.txt'));
          throw new UserError('Export refused: access was lost.');
        };
        return { file: { path: file, fileName: 'result.txt', contentType: 'text/plain', size: 6 }, confirm };
      }
      case 'progress':
        // 2,500 reports in about 2.5 s: the runner must write a handful, not thousands.
        for (let i = 1; i <= 2500; i++) {
          ctx.progress(i / 2500, `step ${i}`);
          if (i % 10 === 0) await new Promise((r) => setTimeout(r, 10));
        }
        return;
      case 'cancel': {
        const until = Date.now() + 20000;
        while (!ctx.signal.aborted && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        s.aborted = Date.now();
        throw new Error('stopped by the signal');
      }
      case 'user-error':
        throw new UserError('The file has no rows.');
      case 'flaky':
        if (ctx.attempt === 1) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        return;
      case 'unknown-error':
        throw new TypeError('undefined is not a function');
    }
  }
}

@Module({})
class RunnerTestModule {
  static forRoot(t: TestApp): DynamicModule {
    return {
      module: RunnerTestModule,
      imports: [CoreModule.forRoot(t.config, { entities, migrations, jobs: [RunnerTestJob], resultItems: ContentRepository })],
      providers: [JobRunner, RunnerTestHandler, ContentRepository],
    };
  }
}

describe('job runner', () => {
  let t: TestApp;
  let ctx: Awaited<ReturnType<typeof NestFactory.createApplicationContext>>;
  let jobs: JobsService;
  let content: ContentRepository;
  let ownerId: string;
  let orgId: string;
  let queue: Queue;
  let events: QueueEvents;

  beforeAll(async () => {
    t = await startApp();
    dataDir = t.config.dataDir;
    ctx = await NestFactory.createApplicationContext(RunnerTestModule.forRoot(t), { logger: false });
    await ctx.init();
    jobs = ctx.get(JobsService);
    content = ctx.get(ContentRepository);
    [{ id: ownerId, org_id: orgId }] = await t.db.query(`SELECT id, org_id FROM users WHERE username = 'admin'`);
    const connection = bullConnection(t.config);
    queue = new Queue(QUEUE, { connection, prefix: t.config.queuePrefix });
    events = new QueueEvents(QUEUE, { connection, prefix: t.config.queuePrefix });
    await events.waitUntilReady();
  }, 60000);

  afterAll(async () => {
    await events?.close();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await ctx?.close();
    await t?.close();
  });

  const create = (params: object) => {
    const itemId = newId();
    return jobs
      .create(RunnerTestJob, {
        ownerId,
        sourceItemId: null,
        resultItemId: itemId,
        params,
        createItem: (m) =>
          content.insert(
            {
              id: itemId,
              ownerId,
              orgId,
              title: 'runner test',
              type: 'CSV',
              typeKeywords: [],
              tags: [],
              status: 'processing',
              statusMessage: 'processing',
            },
            m,
          ),
      })
      .then((jobId) => ({ jobId, itemId }));
  };
  const row = async (id: string) => (await t.db.query(`SELECT status, status_message, attempts FROM jobs WHERE id = $1`, [id]))[0];
  const item = async (id: string) =>
    (await t.db.query(`SELECT status, status_message, file_path, size, name FROM items WHERE id = $1`, [id]))[0];
  const settled = async (id: string, ms = 30000) => {
    const until = Date.now() + ms;
    for (;;) {
      const r = await row(id);
      if (!['queued', 'processing'].includes(r.status)) return r;
      if (Date.now() > until) throw new Error(`job ${id} still ${r.status}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };

  it('refuses parameters its kind does not accept before anything is written', async () => {
    const before = (await t.db.query(`SELECT count(*)::int AS n FROM jobs`))[0].n;
    await expect(create({ mode: 'explode' })).rejects.toThrow("Unknown mode 'explode'.");
    expect((await t.db.query(`SELECT count(*)::int AS n FROM jobs`))[0].n).toBe(before);
  });

  it('moves a completed job file into its result item and removes the job folder', async () => {
    const { jobId, itemId } = await create({ mode: 'file' });
    expect(await settled(jobId)).toMatchObject({ status: 'completed', attempts: 1 });
    const i = await item(itemId);
    expect(i).toMatchObject({ status: 'completed', size: '5', name: 'result.txt' });
    expect(await fs.readFile(path.join(t.config.dataDir, i.file_path), 'utf8')).toBe('hello');
    expect(path.dirname(seen.get(jobId)!.workDir!)).toBe(jobsTempDir(t.config));
    expect(existsSync(seen.get(jobId)!.workDir!)).toBe(false);
  });

  it('asks the handler to confirm once the file is stored, and drops the file when it refuses', async () => {
    const { jobId, itemId } = await create({ mode: 'refused-at-hand-over' });
    expect(await settled(jobId)).toMatchObject({ status: 'failed', status_message: 'Export refused: access was lost.' });
    expect(seen.get(jobId)!.storedWhenConfirming).toBe(true);
    expect((await item(itemId)).file_path).toBeNull();
    expect(existsSync(path.join(t.config.dataDir, 'items', itemId))).toBe(false);
  });

  it('writes progress at most about once a second, ending at 100%', async () => {
    let reports = 0;
    let last: unknown;
    const { jobId } = await create({ mode: 'progress' });
    const count = ({ jobId: id, data }: { jobId: string; data: unknown }) => {
      if (id !== jobId) return;
      reports++;
      last = data;
    };
    // What the status route shows: the row's message, sampled far more often than the runner may write it.
    const messages = new Set<string>();
    let sampling = true;
    const sample = (async () => {
      while (sampling) {
        const r = await row(jobId);
        if (r.status === 'processing') messages.add(r.status_message);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    events.on('progress', count);
    try {
      await settled(jobId);
      await new Promise((r) => setTimeout(r, 300)); // the last event may trail the row
    } finally {
      events.off('progress', count);
      sampling = false;
      await sample;
    }
    expect(reports).toBeGreaterThanOrEqual(2);
    expect(reports).toBeLessThanOrEqual(6);
    expect(last).toEqual({ percent: 100 });
    expect((await row(jobId)).status).toBe('completed');
    const written = [...messages].filter((m) => m.startsWith('processing: '));
    expect(written.length).toBeGreaterThanOrEqual(2);
    expect(written.length).toBeLessThanOrEqual(6);
    for (const m of written) expect(m).toMatch(/^processing: \d{1,3}% step \d+$/);
  });

  it('aborts the handler when the row is cancelled, and leaves the row as the cancel wrote it', async () => {
    const { jobId, itemId } = await create({ mode: 'cancel' });
    const until = Date.now() + 20000;
    while (!seen.get(jobId)?.attempts.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const cancelled = Date.now();
    await jobs.end(jobId, 'cancelled', 'Cancelled: the item was deleted.');
    while (!seen.get(jobId)?.aborted && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(seen.get(jobId)!.aborted! - cancelled).toBeLessThan(1500);
    await new Promise((r) => setTimeout(r, 300));
    expect(await row(jobId)).toMatchObject({ status: 'cancelled', status_message: 'Cancelled: the item was deleted.', attempts: 1 });
    expect((await item(itemId)).status).toBe('failed');
    expect(seen.get(jobId)!.attempts).toEqual([1]);
  });

  it("fails a job at once on its kind's permanent errors, with the error's message", async () => {
    const { jobId, itemId } = await create({ mode: 'user-error' });
    expect(await settled(jobId)).toMatchObject({ status: 'failed', status_message: 'The file has no rows.', attempts: 1 });
    expect(await item(itemId)).toMatchObject({ status: 'failed', status_message: 'The file has no rows.', file_path: null });
    expect(await (await queue.getJob(jobId))!.getState()).toBe('failed');
  });

  it('fails an unrecognised error at once while the database answers', async () => {
    const { jobId } = await create({ mode: 'unknown-error' });
    expect(await settled(jobId)).toMatchObject({ status: 'failed', status_message: 'undefined is not a function', attempts: 1 });
  });

  it('retries a transient fault with backoff and completes', async () => {
    const { jobId } = await create({ mode: 'flaky' });
    expect(await settled(jobId, 30000)).toMatchObject({ status: 'completed', attempts: 2 });
    expect(seen.get(jobId)!.attempts).toEqual([1, 2]);
  }, 40000);

  it('fails a stored job whose parameters no longer pass its spec, without running it', async () => {
    // A row as a deployment with other rules might have left it.
    const jobId = newId();
    await t.db.query(
      `INSERT INTO jobs (id, type, owner_id, status, status_message, params) VALUES ($1, 'runner-test', $2, 'queued', 'queued', '{"mode":"gone"}')`,
      [jobId, ownerId],
    );
    await ctx.get(JobQueueService).enqueue(RunnerTestJob, jobId);
    expect(await settled(jobId)).toMatchObject({ status: 'failed', status_message: "Unknown mode 'gone'.", attempts: 1 });
    expect(seen.has(jobId)).toBe(false);
  });
});

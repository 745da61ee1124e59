/**
 * The processes the load benchmark runs against, as scripts/start.sh runs them but on loopback only: a scratch
 * database (created, migrated, dropped), a scratch queue prefix (its Redis keys deleted), a temporary DATA_DIR, the
 * built API (as `npm run start:api` starts it) and two workers (as `npm run start:worker` starts one). Their logs go to files in
 * the temporary folder, so the benchmark can say which errors the service logged.
 */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';
import { API, WORKER } from './worker-command';

const REPO = path.resolve(__dirname, '../..');

export interface Cluster {
  root: string;
  base: string;
  databaseUrl: string;
  admin: { username: string; password: string };
  /** A connection to the scratch database, for loading data and reading job rows. */
  db: Client;
  dir: string;
  processes: { name: string; proc: ChildProcess; log: string }[];
  /** Peak resident memory (VmHWM) per process, in MB, while it runs. */
  peakRss(): Record<string, number>;
  /** Processes that exited before close(), with their exit code or signal. */
  exited(): string[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export async function startCluster(): Promise<Cluster> {
  for (const f of ['dist/src/main.js', 'dist/src/worker.js']) {
    if (!existsSync(path.join(REPO, f))) throw new Error(`${f} is missing: run \`npm run build\` first`);
  }
  const server = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/arcgis';
  const name = `arcgis_load_${Date.now()}`;
  const databaseUrl = server.replace(/\/[^/]*$/, `/${name}`);
  const pgAdmin = new Client({ connectionString: server.replace(/\/[^/]*$/, '/postgres') });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  const dir = mkdtempSync(path.join(tmpdir(), 'arcgis-load-'));
  const processes: Cluster['processes'] = [];
  const exits: string[] = [];
  const peaks: Record<string, number> = {};
  let closing: Promise<void> | undefined;
  let db: Client | undefined;
  let sampler: NodeJS.Timeout | undefined;

  // One clean-up however many callers (a signal and the main path both ask): each waits for the same one to finish.
  const close = () => (closing ??= cleanUp());
  const cleanUp = async () => {
    if (sampler) clearInterval(sampler);
    const alive = processes.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
    const gone = alive.map((p) => new Promise((r) => p.proc.once('exit', r)));
    for (const p of alive) p.proc.kill('SIGTERM');
    // A worker finishes its running job on SIGTERM; one that takes longer than this is killed.
    const kill = setTimeout(() => alive.forEach((p) => p.proc.kill('SIGKILL')), 15_000);
    await Promise.all(gone);
    clearTimeout(kill);
    await db?.end().catch(() => undefined);
    await pgAdmin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((e) => console.error(`drop ${name}: ${e.message}`));
    await pgAdmin.end().catch(() => undefined);
    const keys = await redis.keys(`${name}:*`).catch(() => [] as string[]);
    if (keys.length) await redis.del(...keys).catch(() => undefined);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await pgAdmin.connect();
    await redis.connect();
    await pgAdmin.query(`CREATE DATABASE ${name}`);
    const ds = new DataSource(dataSourceOptions(databaseUrl, { entities, migrations }));
    await ds.initialize();
    await ds.runMigrations();
    await ds.destroy();
    db = new Client({ connectionString: databaseUrl });
    await db.connect();

    const port = await freePort();
    const admin = { username: 'load_admin', password: 'load-admin-password-1' };
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: path.join(dir, 'data'),
      QUEUE_PREFIX: name,
      PORT: String(port),
      ADMIN_USERNAME: admin.username,
      ADMIN_PASSWORD: admin.password,
      LOG_LEVEL: 'warn',
    };
    const run = (label: string, args: string[], extra: Record<string, string> = {}) => {
      const log = path.join(dir, `${label}.log`);
      const out = createWriteStream(log);
      // Same process group as the benchmark, so a Ctrl-C reaches them even if this process cannot clean up.
      const proc = spawn(process.execPath, args, { cwd: REPO, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout!.pipe(out);
      proc.stderr!.pipe(out);
      proc.once('exit', (code, signal) => {
        if (!closing) exits.push(`${label} exited (${signal ?? `code ${code}`})`);
      });
      processes.push({ name: label, proc, log });
    };
    run('api', [...API.flags, '-r', path.join(__dirname, 'loopback-only.cjs'), API.script], API.env);
    // As `npm run start:worker` starts a worker.
    run('worker1', [...WORKER.flags, WORKER.script], WORKER.env);
    run('worker2', [...WORKER.flags, WORKER.script], WORKER.env);

    const root = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exits.length) throw new Error(`${exits.join(', ')} while starting:\n${readFileSync(processes[0].log, 'utf8').slice(-2000)}`);
      const ok = await fetch(`${root}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('the API did not answer /health within 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    sampler = setInterval(() => {
      for (const p of processes) {
        try {
          const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.proc.pid}/status`, 'utf8'))?.[1] ?? 0);
          peaks[p.name] = Math.max(peaks[p.name] ?? 0, kb / 1024);
        } catch {
          // exited: its last sample stays
        }
      }
    }, 500);

    return {
      root,
      base: `${root}/sharing/rest`,
      databaseUrl,
      admin,
      db,
      dir,
      processes,
      peakRss: () => ({ ...peaks }),
      exited: () => [...exits],
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * `npm run migrate` / `migrate:revert` as a production install runs them: from the compiled build, with every dev
 * dependency absent (test/support/production-deps-only.js), against a scratch database this file creates and drops.
 * The build goes to a folder of its own rather than dist/, which other processes may be running from.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { migrations } from '../../src/migrations';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join('node_modules', '.cache', `migrate-spec-${process.pid}`);
const PROD_ONLY = path.join(ROOT, 'test/support/production-deps-only.js');
const scripts: Record<string, string> = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
const server = process.env.TEST_PG_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const dbName = `arcgis_migrate_${Date.now()}_${process.pid}`;
const dbUrl = Object.assign(new URL(server), { pathname: `/${dbName}` }).toString();

function run(file: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    const options = { cwd: ROOT, env: { PATH: `${ROOT}/node_modules/.bin:${process.env.PATH}`, ...env }, timeout: 60_000 };
    execFile(file, args, options, (e, stdout, stderr) => resolve({ code: e ? Number(e.code ?? 1) : 0, out: `${stdout}${stderr}` }));
  });
}

/** The npm script's own command line, reading the build from OUT instead of dist/, as a production install would. */
function npmScript(name: string, { productionOnly = true } = {}) {
  const command = scripts[name];
  expect(command).toBeDefined();
  const env: Record<string, string> = { DATABASE_URL: dbUrl, ...(productionOnly ? { NODE_OPTIONS: `--require=${PROD_ONLY}` } : {}) };
  return run('sh', ['-c', command.replace(/(^|\s)dist\//g, `$1${OUT}/`)], env);
}

async function sql<T>(text: string): Promise<T[]> {
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

const applied = async () => (await sql<{ name: string }>('SELECT name FROM migrations ORDER BY id')).map((r) => r.name);
const TABLES = `SELECT to_regclass('public.items') AS items, to_regclass('public.jobs') AS jobs, to_regclass('public.tokens') AS tokens`;
const tables = async () => (await sql<Record<string, string | null>>(TABLES))[0];
const ALL = migrations.map((m) => m.name);

beforeAll(async () => {
  // The build's own configuration; --noCheck because typecheck is a separate step (and this only needs the emit).
  const build = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck', '--outDir', OUT]);
  if (build.code !== 0) throw new Error(`build failed:\n${build.out}`);
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
});

afterAll(async () => {
  rmSync(path.join(ROOT, OUT), { recursive: true, force: true });
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

describe('production migrations', () => {
  it('the build emits the CLI data source, and the scripts load it rather than TypeScript', () => {
    expect(scripts.migrate).toMatch(/^typeorm migration:run -d dist\/ormconfig\.js$/);
    expect(scripts['migrate:revert']).toMatch(/^typeorm migration:revert -d dist\/ormconfig\.js$/);
    expect(existsSync(path.join(ROOT, OUT, 'ormconfig.js'))).toBe(true);
  });

  it('a production install cannot run the ts-node variant, so the checks below stand for one', async () => {
    const r = await npmScript('migrate:dev');
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/Cannot find module 'ts-node'/);
    expect(await sql(`SELECT 1 FROM pg_tables WHERE tablename = 'migrations'`)).toEqual([]);
  });

  it('npm run migrate applies every migration in order, and a second run changes nothing', async () => {
    const first = await npmScript('migrate');
    expect(first.out).not.toMatch(/Cannot find module/);
    expect(first.code).toBe(0);
    expect(await applied()).toEqual(ALL);
    expect(await tables()).toEqual({ items: 'items', jobs: 'jobs', tokens: 'tokens' });

    const again = await npmScript('migrate');
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/No migrations are pending/);
    expect(await applied()).toEqual(ALL);
  });

  it('npm run migrate:revert undoes the latest migration per run, down to an empty schema that migrate rebuilds', async () => {
    for (let left = ALL.length - 1; left >= 0; left--) {
      const r = await npmScript('migrate:revert');
      expect(r.code).toBe(0);
      expect(await applied()).toEqual(ALL.slice(0, left));
    }
    expect(await tables()).toEqual({ items: null, jobs: null, tokens: null });

    // The dev variant (what scripts/setup.sh runs before anything is built) reaches the same state from the sources.
    const dev = await npmScript('migrate:dev', { productionOnly: false });
    expect(dev.code).toBe(0);
    expect(await applied()).toEqual(ALL);
    expect(await tables()).toEqual({ items: 'items', jobs: 'jobs', tokens: 'tokens' });
  });
});

import { spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Runs an entry point the way operators do (one process), via ts-node so no build is needed. */
function run(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      LOG_LEVEL: 'info',
      TS_NODE_PROJECT: 'tsconfig.json',
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (text: string, ms = 20000) => {
    const until = Date.now() + ms;
    while (!out.includes(text)) {
      if (Date.now() > until) throw new Error(`timed out waiting for '${text}'; output:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, exited, waitFor, output: () => out };
}

describe('entry points', () => {
  it('the worker boots, connects to Postgres and Redis, and exits 0 on SIGTERM', async () => {
    const w = run('src/worker.ts', { DATA_DIR: '/tmp/arcgis-worker-test' });
    await w.waitFor('worker started');
    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(w.output()).not.toMatch(/error/i);
  });

  it('refuses to start with bad configuration, naming the variable and printing no stack', async () => {
    for (const entry of ['src/main.ts', 'src/worker.ts']) {
      const p = run(entry, { PORT: 'eighty', REDIS_URL: 'http://nope' });
      expect(await p.exited).toBe(1);
      expect(p.output()).toContain('PORT must be an integer');
      expect(p.output()).toContain('REDIS_URL must be a redis:// URL');
      expect(p.output()).not.toContain('    at ');
    }
  });
});

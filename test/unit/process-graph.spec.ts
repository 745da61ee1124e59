/**
 * The API process only enqueues: loading its module graph must not load GDAL or what the jobs run, which the job
 * contracts import lazily. The worker's graph does load them when it starts a job, not before.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');

function loadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: root,
    env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' },
    encoding: 'utf8',
  });
  return (JSON.parse(out) as string[]).map((f) => path.relative(root, f));
}

describe('process graphs', () => {
  it('the API module loads neither GDAL nor the export writer nor the publish loader', () => {
    const loaded = loadedBy('./src/app.module');
    expect(loaded).toContain(path.join('src', 'export', 'export.job.ts'));
    expect(loaded.filter((f) => /node_modules[\\/]gdal-async|write-export|publish[\\/](load|inspect)\.ts/.test(f))).toEqual([]);
  }, 60000);
});

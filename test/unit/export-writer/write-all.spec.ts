/**
 * writeAll against a real short write: under a file size limit (ulimit -f) the kernel writes what fits and the next
 * write fails with EFBIG. A single FileHandle.write would report the short count and carry on, leaving a truncated
 * export behind as if it were whole.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '../../..');

it('a write cut short by a file size limit fails with the error, instead of leaving the file short', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'write-all-'));
  try {
    const script = `
      const { open } = require('node:fs/promises');
      const { writeAll } = require('./src/export/writer/write-all');
      (async () => {
        const file = await open(process.argv[1], 'w');
        try { await writeAll(file, Buffer.alloc(2 << 20, 97), null); console.log('written'); }
        catch (e) { console.log('failed ' + e.code); }
        finally { await file.close(); }
      })();`;
    // 1536 blocks of 1 KiB: 1.5 MiB of the 2 MiB fit.
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-c', 'ulimit -f 1536 && exec node -r ts-node/register/transpile-only -e "$0" "$1"', script, join(dir, 'out')],
      { cwd: ROOT },
    );
    expect(stdout.trim()).toBe('failed EFBIG');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);

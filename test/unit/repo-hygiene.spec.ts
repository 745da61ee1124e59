/**
 * Comments, messages and docs never point at files outside this repository: a reader of the repository cannot open
 * them. The names below are reference notes the code was once written against; state the fact itself instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SELF = path.relative(ROOT, __filename);
// Extended regular expressions, matched case-insensitively; `arcgis-compat` but not the word ArcGIS-compatible.
const OUTSIDE = ['arcgis-compat([^a-z]|$)', 'export-engineering', 'style-models', 'shared/docs'];

/** Lines (file:line:text) of the tracked files, as they are in the working tree, that name a file outside the repo. */
function citations(cwd: string, extra: string[] = []): string[] {
  const args = ['grep', '-n', '-I', '-i', '-E', ...OUTSIDE.flatMap((s) => ['-e', s]), ...extra];
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim().split('\n');
  } catch (e) {
    if (e.status === 1) return []; // git grep: no match
    throw e;
  }
}

describe('repository hygiene', () => {
  it('finds a citation when there is one (the check itself works)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hygiene-'));
    try {
      writeFileSync(path.join(dir, 'a.ts'), '// see Shared/Docs/ARCGIS-COMPAT.md 1.5\nexport const a = 1;\n');
      writeFileSync(path.join(dir, 'b.ts'), '// An ArcGIS-compatible service (style-models.md)\n');
      writeFileSync(path.join(dir, 'c.ts'), '// An ArcGIS-compatible service: the envelope is HTTP 200\n');
      expect(citations(dir, ['--no-index'])).toEqual([
        'a.ts:1:// see Shared/Docs/ARCGIS-COMPAT.md 1.5',
        'b.ts:1:// An ArcGIS-compatible service (style-models.md)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no tracked file names a reference note outside the repository', () => {
    expect(citations(ROOT, ['--', '.', `:!${SELF}`])).toEqual([]);
  });
});

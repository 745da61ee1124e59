import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const SRC = path.resolve(__dirname, '../../src');
const CORE = path.join(SRC, 'core');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/**
 * Core is the ground floor: every feature module and both processes build on it, so an import from core into a
 * feature (or the composition roots) makes a cycle the next refactor trips over. TypeScript's own pre-processor lists
 * the imports, type-only and dynamic ones included, which a grep for `from '../` would miss when written differently.
 */
describe('src/core imports nothing above it', () => {
  it('every relative import in src/core resolves inside src/core', () => {
    const files = tsFiles(CORE);
    expect(files.length).toBeGreaterThan(20);
    const escapes: string[] = [];
    for (const file of files) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      for (const { fileName } of importedFiles) {
        if (!fileName.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), fileName);
        if (path.relative(CORE, target).startsWith('..')) escapes.push(`${path.relative(SRC, file)} -> ${fileName}`);
      }
    }
    expect(escapes).toEqual([]);
  });
});

import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

let version: string | undefined;

/**
 * An identity of the code this process runs: a hash of the names, sizes and modification times of the files under
 * the application's source root (src/ or dist/src/). Replicas started from one build or image agree on it; another
 * build differs, so a validator that includes it never declares a reply written by older code still current.
 */
export function codeVersion(): string {
  if (version) return version;
  const root = path.resolve(__dirname, '..');
  const hash = createHash('sha1');
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (/\.(js|ts)$/.test(e.name)) {
        const s = statSync(file);
        hash.update(`${path.relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  walk(root);
  return (version = hash.digest('base64url').slice(0, 12));
}

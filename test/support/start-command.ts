import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** A process as its npm script starts it: the environment the script sets, node's flags and the script. */
export interface StartCommand {
  env: Record<string, string>;
  flags: string[];
  script: string;
}

/**
 * Reads `npm run start:api` or `start:worker` from package.json, so that tests and benchmarks start the processes
 * users run, with the same node flags and malloc settings (the image and compose are checked against them too).
 */
export function startCommand(name: 'start:api' | 'start:worker'): StartCommand {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  const command = pkg.scripts[name];
  const m = /^((?:[A-Z_]+=\S+ )*)node ((?:--\S+ )*)(\S+)$/.exec(command);
  if (!m) throw new Error(`${name} is not "NAME=value … node --flag … script": ${command}`);
  const env = Object.fromEntries(
    m[1]
      .split(' ')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
  return { env, flags: m[2].split(' ').filter(Boolean), script: m[3] };
}

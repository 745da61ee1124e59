import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's python with python3-qgis, not a pyenv one. */
const PYTHON = process.env.QGIS_PYTHON ?? '/usr/bin/python3';

/** Refuses to start a suite on a machine without QGIS's python. */
export function requireQgis(): void {
  if (!existsSync(PYTHON)) throw new Error(`No ${PYTHON}: install Debian's python3-qgis and qgis-providers.`);
}

/**
 * Runs `test/compat/qgis/<script>` headless with `args`, its profile, cache and auth database under `home` (so runs
 * never share QGIS state), and answers the JSON it prints on the last line of stdout.
 */
export async function runQgisScript<T>(script: string, args: string[], home: string): Promise<T> {
  const env = {
    ...process.env,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_RUNTIME_DIR: home,
    QGIS_AUTH_DB_DIR_PATH: home,
    QT_QPA_PLATFORM: 'offscreen',
  };
  const { stdout } = await run(PYTHON, [path.join(__dirname, '..', 'compat', 'qgis', script), ...args], { env, timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

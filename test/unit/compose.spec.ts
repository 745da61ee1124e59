import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '../../src/core/config/env';
import { startCommand } from '../support/start-command';

/** docker/compose.yml against src/core/config/env.ts: a variable added to one and not the other fails here. */
const ROOT = path.resolve(__dirname, '../..');
const compose = readFileSync(path.join(ROOT, 'docker/compose.yml'), 'utf8');
const envSource = readFileSync(path.join(ROOT, 'src/core/config/env.ts'), 'utf8');

const dtoSource = envSource.slice(envSource.indexOf('class EnvDto'), envSource.indexOf('export interface AppConfig'));
const dtoFields = [...dtoSource.matchAll(/^ {2}([A-Z][A-Z0-9_]*)\??\s*[:=]/gm)].map((m) => m[1]);

/** `KEY: value` lines of the mapping that follows `header` at `indent` (comments and `<<:` merges skipped). */
function block(header: RegExp, indent: string): Record<string, string> {
  const m = header.exec(compose);
  expect(m).not.toBeNull();
  const out: Record<string, string> = {};
  for (const line of compose.slice(m!.index + m![0].length).split('\n')) {
    if (!line.startsWith(indent) || line[indent.length] === ' ') break;
    const kv = /^([A-Z][A-Z0-9_]*): (.*?)(\s+#.*)?$/.exec(line.slice(indent.length));
    if (kv) out[kv[1]] = kv[2];
    else if (!/^(#|<<:)/.test(line.slice(indent.length))) break;
  }
  return out;
}

/** Compose's interpolation with nothing set in the shell or .env: `${X:-d}` gives d, `${X-}` gives ''. */
const interpolate = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1').replace(/^"(.*)"$/, '$1')]));

describe('docker/compose.yml', () => {
  const shared = block(/^x-app-env: &app-env\n/m, '  ');
  const api = block(/^ {2}api:\n( {4}.*\n)*? {4}environment:\n/m, '      ');

  it('reads the configuration variables from the source (the parser of this test works)', () => {
    expect(dtoFields).toEqual(expect.arrayContaining(['DATABASE_URL', 'QUEUE_PREFIX', 'JOB_LOCK_MS', 'EXPORT_ZIP_LEVEL', 'BODY_MAX_MB']));
    expect(dtoFields.length).toBeGreaterThan(30);
  });

  it('passes every variable of env.ts to migrate, api and worker, and the admin pair to the api', () => {
    const everywhere = dtoFields.filter((f) => !['PORT', 'ADMIN_USERNAME', 'ADMIN_PASSWORD'].includes(f));
    expect(everywhere.filter((f) => !(f in shared))).toEqual([]);
    expect(Object.keys(shared).filter((k) => !dtoFields.includes(k))).toEqual([]);
    for (const service of ['migrate', 'api', 'worker']) {
      expect(compose).toMatch(new RegExp(`\\n  ${service}:\\n(    .*\\n)*?    environment:\\n      <<: \\*app-env\\n`));
    }
    expect(api).toMatchObject({ PORT: '3000', ADMIN_USERNAME: expect.any(String), ADMIN_PASSWORD: expect.any(String) });
  });

  it('leaves defaults to the application, and no variable is mandatory for compose itself (down and logs work)', () => {
    expect(compose.replace(/#.*$/gm, '')).not.toMatch(/\$\{[A-Z0-9_]+:?\?/);
    const env = interpolate({ ...shared, ...api, ADMIN_PASSWORD: 'a-long-password' });
    const config = loadConfig(env);
    const defaults = loadConfig({});
    const placeOnly = { databaseUrl: '', redisUrl: '', dataDir: '', admin: undefined };
    expect({ ...config, ...placeOnly }).toEqual({ ...defaults, ...placeOnly });
  });

  it('without ADMIN_PASSWORD the api refuses to start, saying so', () => {
    expect(() => loadConfig(interpolate({ ...shared, ...api }))).toThrow(ConfigError);
    expect(() => loadConfig(interpolate({ ...shared, ...api }))).toThrow(/ADMIN_USERNAME and ADMIN_PASSWORD must be set together/);
  });

  it('starts the worker as `npm run start:worker` and start.sh do: the same node flags and malloc settings', () => {
    const script = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['start:worker'] as string;
    const [, envPart, flagPart] = /^((?:[A-Z_]+=\S+ )+)node ((?:--\S+ )+)dist\/src\/worker\.js$/.exec(script) ?? [];
    expect(flagPart).toContain('--heap-growing-percent=');
    const flags = flagPart.trim().split(' ');
    const env = Object.fromEntries(
      envPart
        .trim()
        .split(' ')
        .map((kv) => kv.split('=')),
    );
    expect(Object.keys(env)).toEqual(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']);
    expect(readFileSync(path.join(ROOT, 'scripts/start.sh'), 'utf8')).toContain(script);
    const workers = [/^ {2}worker:\n( {4}.*\n)*? {4}command: (.*)\n/m, /^ {2}worker-s3:\n( {4}.*\n)*? {4}command: (.*)\n/m];
    for (const header of workers) {
      const m = header.exec(compose);
      expect(JSON.parse(m![2])).toEqual(['node', ...flags, 'dist/src/worker.js']);
      const rest = compose.slice(m!.index + 1);
      const at = rest.slice(0, rest.search(/\n {2}\S/));
      for (const [k, v] of Object.entries(env)) expect(at).toMatch(new RegExp(`\\n {6}${k}: "${v}"`));
    }
  });

  it('starts the API as `npm run start:api` does, in start.sh, the image and compose: the same node flags', () => {
    const api = startCommand('start:api');
    expect(api).toEqual({ env: {}, flags: expect.arrayContaining(['--max-semi-space-size=4']), script: 'dist/src/main.js' });
    const argv = ['node', ...api.flags, api.script];
    expect(readFileSync(path.join(ROOT, 'scripts/start.sh'), 'utf8')).toContain(`\n${argv.join(' ')} &\n`);
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(ROOT, 'docker/Dockerfile'), 'utf8'));
    expect(JSON.parse(cmd![1])).toEqual(argv);
    for (const service of ['api', 'api-s3']) {
      const m = new RegExp(`^ {2}${service}:\\n( {4}.*\\n)*? {4}command: (.*)\\n`, 'm').exec(compose);
      expect(JSON.parse(m![2])).toEqual(argv);
    }
  });
});

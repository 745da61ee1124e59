import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, connect, AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The cache configuration docs/operations.md gives operators. */
export const NGINX_CONF = path.resolve(__dirname, '../../deploy/nginx/arcgis-cache.conf');

export interface Nginx {
  /** http://127.0.0.1:<port> */
  root: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Debian's nobody, which nginx runs as when this process is root: the test must not run a root server. */
const NOBODY = 65534;

function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) chownTree(p, uid);
    else chownSync(p, uid, uid);
  }
}

/**
 * nginx with the shipped configuration in front of the API at `upstreamPort`, started by the test as a process of its
 * own (not root: as nobody when the test runs as root) with a prefix directory of its own and a free loopback port;
 * only the upstream address, the listen line and the cache directory differ from what operators install.
 */
export async function startNginx(upstreamPort: number): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'arcgis-nginx-'));
  const port = await freePort();
  for (const d of ['logs', 'cache', 'temp']) mkdirSync(path.join(dir, d));
  const shipped = readFileSync(NGINX_CONF, 'utf8');
  const site = shipped
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${upstreamPort};`)
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replace('/var/cache/nginx/arcgis', path.join(dir, 'cache'));
  if (site === shipped) throw new Error(`${NGINX_CONF} no longer has the lines the test adapts`);
  writeFileSync(path.join(dir, 'arcgis-cache.conf'), site);
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, 'temp', name)};`;
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${path.join(dir, 'logs/error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  include ${path.join(dir, 'arcgis-cache.conf')};
}
`,
  );
  const root = process.getuid?.() === 0;
  if (root) chownTree(dir, NOBODY);
  const args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'logs/error.log')];
  execFileSync('nginx', [...args, '-t', '-q'], { stdio: 'pipe', ...(root ? { uid: NOBODY, gid: NOBODY } : {}) });
  const child: ChildProcess = spawn('nginx', args, { stdio: 'ignore', ...(root ? { uid: NOBODY, gid: NOBODY } : {}) });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`nginx did not start: ${readFileSync(path.join(dir, 'logs/error.log'), 'utf8').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    root: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

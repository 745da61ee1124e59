import { INestApplicationContext } from '@nestjs/common';
import { startApp, TestApp } from './app';
import { adminToken, createUser } from './client';
import { startWorker } from './worker';

export interface User {
  username: string;
  password: string;
  token: string;
}

export interface Harness<U extends string> extends TestApp {
  /** The administrator's token. */
  admin: string;
  /** One signed-in user per name asked, with the role asked. */
  users: Record<U, User>;
  /** A worker in this process, when asked for. */
  worker: INestApplicationContext;
}

export interface HarnessOptions<U extends string> {
  /** Name → role, e.g. { owner: 'org_publisher', viewer: 'org_user' }. */
  users?: Record<U, string>;
  env?: Record<string, string>;
  worker?: boolean;
}

/**
 * The app (and a worker if asked) started before the enclosing describe's tests and closed after them, with an admin
 * token and the users asked. The object and each user object are filled in place, so a spec may destructure users
 * at once: `const t = withApp({ users: { owner: 'org_publisher' } }); const { owner } = t.users;`.
 */
export function withApp<U extends string = never>(options: HarnessOptions<U> = {}): Harness<U> {
  const roles = (options.users ?? {}) as Record<U, string>;
  const names = Object.keys(roles) as U[];
  const users = Object.fromEntries(names.map((n) => [n, { username: '', password: '', token: '' }])) as Record<U, User>;
  const h = { users } as Harness<U>;
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startApp(options.env);
    Object.assign(h, started);
    if (options.worker) h.worker = await startWorker(started.config);
    h.admin = await adminToken(started.base);
    for (const n of names) Object.assign(users[n], await createUser(started.base, h.admin, roles[n]));
  }, 60_000);
  afterAll(async () => {
    await h.worker?.close();
    await started?.close();
  });
  return h;
}

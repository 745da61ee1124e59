import { randomBytes, scrypt as scryptCb, timingSafeEqual, ScryptOptions } from 'node:crypto';
import { Errors } from '../core/errors/arcgis-error';

// scrypt is memory-hard (N=2^15, r=8 uses 32 MiB per hash) and ships with Node, so no native build is needed.
const PARAMS = { N: 1 << 15, r: 8, p: 1 };
const KEYLEN = 32;

/**
 * Longest password accepted anywhere (sign-in, user creation, ADMIN_PASSWORD). scrypt first runs PBKDF2 over the
 * whole password, so without a cap its cost grows with the body size.
 */
export const MAX_PASSWORD_LENGTH = 256;

/** Checked before any hashing; the DTOs check the same bound, this is the backstop for every other caller. */
export function assertPasswordLength(password: string): void {
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw Errors.badRequest('Password is too long.', [`A password must be at most ${MAX_PASSWORD_LENGTH} characters.`]);
  }
}

/**
 * Bounds the scrypts one process runs at once (each holds 32 MiB and a thread-pool thread while it runs), with a short
 * queue behind them; beyond it a request is refused at once rather than piling up memory and latency. Hand-written:
 * p-limit (the usual choice) is ESM-only and has no bounded queue, and this is twenty lines.
 */
export class HashSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private size: number,
    private queueMax: number,
  ) {}

  configure(size: number): void {
    this.size = size;
    this.queueMax = size * 32;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) {
      if (this.waiting.length >= this.queueMax) {
        throw Errors.badRequest('Unable to complete operation.', ['Too many password checks are in progress; try again in a few seconds.']);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so `running` only drops when nobody waits.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

const slots = new HashSlots(2, 64);

/** Sets the number of concurrent scrypts per process (PASSWORD_HASH_CONCURRENCY); the queue holds 32 per slot (about 2 s of work). */
export function configureHashConcurrency(size: number): void {
  slots.configure(size);
}

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, KEYLEN, { ...opts, maxmem: 128 * (opts.N ?? 0) * (opts.r ?? 8) * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Stored as `scrypt$N$r$p$salt$hash` so the cost can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  assertPasswordLength(password);
  const salt = randomBytes(16);
  const key = await slots.run(() => scrypt(password, salt, PARAMS));
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Steps run while the hash slot is held, around the scrypt. */
export interface VerifyHooks {
  /** Right before hashing: sign-in re-checks its throttle here, so attempts that queued while it closed hash nothing. */
  before?: () => Promise<void>;
  /** Right after, with the outcome: sign-in records it here, before the next queued attempt's `before` runs. */
  after?: (matched: boolean) => Promise<void>;
}

export async function verifyPassword(password: string, stored: string, hooks: VerifyHooks = {}): Promise<boolean> {
  assertPasswordLength(password);
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const expected = Buffer.from(hash ?? '', 'base64');
  return slots.run(async () => {
    await hooks.before?.();
    let matched = false;
    if (scheme === 'scrypt' && hash) {
      const key = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
      matched = key.length === expected.length && timingSafeEqual(key, expected);
    }
    await hooks.after?.(matched);
    return matched;
  });
}

/**
 * A stored hash nobody's password matches (random salt and key), checked when the user does not exist so that costs
 * the same scrypt. Nothing is hashed to make it, so a refused first call cannot leave it broken.
 */
export function dummyHash(): string {
  const { N, r, p } = PARAMS;
  return (dummyHash_ ??= ['scrypt', N, r, p, randomBytes(16).toString('base64'), randomBytes(KEYLEN).toString('base64')].join('$'));
}
let dummyHash_: string | undefined;

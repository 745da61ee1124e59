import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError } from '../core/errors/arcgis-error';
import { clientNetwork } from '../core/http/client-network';
import { REDIS } from '../core/redis/redis.module';

/** Refusal of a throttled sign-in; the controller also sends its wait as Retry-After. */
export class SignInThrottled extends ArcgisError {
  constructor(readonly retryAfterS: number) {
    super(400, 'Unable to generate token.', [`Too many failed sign-in attempts. Try again in ${retryAfterS} seconds.`]);
  }
}

const DAY_MS = 86_400_000;
/** A per-user lock hits the real user too, wherever they are: it stays short and its failures are forgotten soon. */
const USER_MAX_DELAY_S = 60;
const USER_WINDOW_MS = 3_600_000;
/** How long a (user, address) pair stays known after a successful sign-in. */
const KNOWN_MS = 30 * DAY_MS;

// Each key is a hash {f: failures, u: locked-until ms, k: known}. Redis's clock, so several API processes agree.
// KEYS: pair, address, user. Answers the wait in ms (0: open). A known pair (a successful sign-in from that address
// within KNOWN_MS) skips the address and user locks, so an attacker elsewhere cannot lock its owner out.
const CHECK = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local wait = 0
local n = 3
if redis.call('HGET', KEYS[1], 'k') then n = 1 end
for i = 1, n do
  local u = tonumber(redis.call('HGET', KEYS[i], 'u') or '0')
  if u - now > wait then wait = u - now end
end
return wait`;

// KEYS: pair, address, user; ARGV: for each key its free failures, delay cap (s) and memory (ms).
// After f >= free failures the next attempt waits 2^(f - free + 1) s from now, capped.
const FAIL = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
for i = 1, 3 do
  local free, cap, ttl = tonumber(ARGV[i * 3 - 2]), tonumber(ARGV[i * 3 - 1]), tonumber(ARGV[i * 3])
  local f = redis.call('HINCRBY', KEYS[i], 'f', 1)
  if f >= free then
    redis.call('HSET', KEYS[i], 'u', math.floor(now + 1000 * math.min(2 ^ math.min(f - free + 1, 30), cap)))
  end
  redis.call('PEXPIRE', KEYS[i], math.max(ttl, redis.call('PTTL', KEYS[i])))
end
return 0`;

const SUCCEED = `
redis.call('HDEL', KEYS[1], 'f', 'u')
redis.call('HSET', KEYS[1], 'k', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0`;

const SHAS: Record<string, string> = {};
const digest = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * Growing delays on failed sign-ins, kept in Redis so every API process sees the same counts. Three counters:
 * per (user, address) (the tight one), per address (password spraying over many names), and per user from
 * anywhere (far higher and short, against botnets). User names are hashed: keys never hold them.
 *
 * If Redis is unreachable the throttle lets attempts through (logged): sign-in stays available, and the
 * per-process limit on concurrent scrypts still bounds what a flood can cost.
 */
@Injectable()
export class SignInThrottle {
  private readonly logger = new Logger(SignInThrottle.name);
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.prefix = `${config.queuePrefix}:signin`;
  }

  private keys(username: string, rawAddress: string): string[] {
    const user = digest(username.toLowerCase());
    const address = clientNetwork(rawAddress);
    return [`${this.prefix}:p:${digest(`${user}\0${address}`)}`, `${this.prefix}:a:${address}`, `${this.prefix}:u:${user}`];
  }

  /** Throws SignInThrottled while any applicable counter is locked. */
  async assertOpen(username: string, address: string): Promise<void> {
    const wait = await this.eval(CHECK, this.keys(username, address), []);
    if (typeof wait === 'number' && wait > 0) throw new SignInThrottled(Math.ceil(wait / 1000));
  }

  async failed(username: string, address: string): Promise<void> {
    const s = this.config.signin;
    const cap = s.maxDelayS;
    const memory = Math.max(DAY_MS, cap * 2000);
    await this.eval(FAIL, this.keys(username, address), [
      s.freeFailures,
      cap,
      memory,
      s.addressFreeFailures,
      cap,
      memory,
      s.userFreeFailures,
      Math.min(cap, USER_MAX_DELAY_S),
      USER_WINDOW_MS,
    ]);
  }

  /** Resets the pair's failures and marks it known; the address and user counters stay (an attacker's own account must not clear them). */
  async succeeded(username: string, address: string): Promise<void> {
    await this.eval(SUCCEED, this.keys(username, address).slice(0, 1), [KNOWN_MS]);
  }

  private async eval(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      // EVALSHA with a fallback to EVAL, as ioredis's defineCommand does, without adding commands to the shared client.
      const sha = (SHAS[script] ??= createHash('sha1').update(script).digest('hex'));
      return await this.redis.evalsha(sha, keys.length, ...keys, ...args).catch((e: Error) => {
        if (!e.message.startsWith('NOSCRIPT')) throw e;
        return this.redis.eval(script, keys.length, ...keys, ...args);
      });
    } catch (e) {
      this.logger.warn(`sign-in throttle unavailable, attempt not limited: ${(e as Error).message}`);
      return 0;
    }
  }
}

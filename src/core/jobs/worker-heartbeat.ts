import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { REDIS } from '../redis/redis.module';

/**
 * Live workers are members of one sorted set, `<QUEUE_PREFIX>:workers`, scored by the moment their last beat stops
 * counting. Reading is then one ZCOUNT (O(log N)) rather than a SCAN over a keyspace BullMQ fills with job keys, and
 * a worker killed with SIGKILL drops out by itself once its score is past. Both scripts take the time from Redis
 * (TIME), so the clocks of the worker and API hosts never have to agree.
 */
export const workersKey = (config: AppConfig) => `${config.queuePrefix}:workers`;

// KEYS[1] the set; ARGV[1] this worker; ARGV[2] TTL in ms. Prunes the dead so the set stays as small as the fleet,
// and lets the key itself expire once every worker has stopped beating.
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now))
redis.call('ZADD', KEYS[1], string.format('%d', now + ttl), ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

const ALIVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%d', now), '+inf')`;

/** Workers whose heartbeat has not run out (the API's view; throws when Redis does not answer). */
export async function aliveWorkers(redis: Redis, config: AppConfig): Promise<number> {
  return Number(await redis.eval(ALIVE, 1, workersKey(config)));
}

/** The reader, for the API (job status, health). */
@Injectable()
export class WorkerRegistry {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Rejects rather than waits when Redis is slow: the job status route and /health must answer regardless. */
  async alive(timeoutMs = 2000): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        aliveWorkers(this.redis, this.config),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`Redis did not answer in ${timeoutMs} ms`)), timeoutMs)),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The writer, in the worker process only: beats every third of the TTL, so two beats may be lost (a Redis blip, a
 * busy event loop) before the worker counts as gone. A clean shutdown removes it at once, so the API does not wait
 * out the TTL to know.
 */
@Injectable()
export class WorkerHeartbeat implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WorkerHeartbeat');
  // The pid alone is not unique: tests run several workers in one process.
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private timer?: NodeJS.Timeout;
  private failing = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const ttlMs = this.config.workerHeartbeatTtlS * 1000;
    // The shared connection refuses commands until it is ready (no offline queue); the first beat should count, so
    // "worker started" means the API already sees it. Bounded: with Redis down the worker starts and beats later.
    if (this.redis.status !== 'ready') await this.ready(ttlMs);
    await this.beat(ttlMs);
    this.timer = setInterval(() => void this.beat(ttlMs), Math.floor(ttlMs / 3));
    this.timer.unref();
  }

  private ready(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.redis.once('ready', done);
    });
  }

  private async beat(ttlMs: number): Promise<void> {
    try {
      await this.redis.eval(BEAT, 1, workersKey(this.config), this.id, String(ttlMs));
      if (this.failing) this.logger.log('heartbeat restored');
      this.failing = false;
    } catch (e) {
      // Logged once per outage, not every beat; the worker keeps running and beats again when Redis is back.
      if (!this.failing) this.logger.warn(`heartbeat failed: ${(e as Error).message}`);
      this.failing = true;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.zrem(workersKey(this.config), this.id).catch(() => undefined);
  }
}

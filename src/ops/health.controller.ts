import { ArgumentsHost, Catch, Controller, ExceptionFilter, Get, HttpException, Inject, Injectable, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../core/database/request-pools.module';
import { NotArcgis } from '../core/http/decorators';
import { WorkerRegistry } from '../core/jobs/worker-heartbeat';
import { REDIS } from '../core/redis/redis.module';

/**
 * How long a dependency may take to answer before it counts as down. A second was too short: with both cores busy
 * (the load benchmark's 50 clients), pings took longer and orchestrators would have pulled a working API.
 */
const PING_MS = 3000;

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async isHealthy(key: string) {
    const check = this.indicator.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      const pong = await Promise.race([
        this.redis.ping(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timeout after ${PING_MS} ms`)), PING_MS))),
      ]);
      return pong === 'PONG' ? check.up() : check.down({ message: `unexpected reply ${pong}` });
    } catch (e) {
      return check.down({ message: (e as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Workers alive by their heartbeat (core/jobs/worker-heartbeat.ts): up with at least one. */
@Injectable()
export class WorkersHealthIndicator {
  constructor(
    private readonly workers: WorkerRegistry,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async isHealthy(key: string): Promise<HealthIndicatorResult> {
    const check = this.indicator.check(key);
    try {
      const alive = await this.workers.alive();
      return alive > 0 ? check.up({ alive }) : check.down({ alive, message: 'No worker is running: exports and publishes wait.' });
    } catch (e) {
      return check.down({ message: `unknown: ${(e as Error).message}` });
    }
  }
}

/**
 * Workers are reported beside the check, never inside it: terminus answers 503 as soon as one indicator is down, and
 * an API without workers still serves everything but new exports and publishes, so an orchestrator must not restart
 * it for that (nor would a restart bring a worker). `details.workers` (and `info.workers`) say up or down; `error`
 * and the status code stay about what this process itself needs.
 */
function withWorkers<T extends Pick<HealthCheckResult, 'info' | 'details'>>(body: T, workers: HealthIndicatorResult): T {
  return { ...body, info: { ...body.info, ...workers }, details: { ...body.details, ...workers } };
}

/** Health is for orchestrators, not ArcGIS clients: it keeps terminus's body and its 503. */
@Catch(HttpException)
class PlainHttpFilter implements ExceptionFilter {
  catch(e: HttpException, host: ArgumentsHost) {
    host.switchToHttp().getResponse<Response>().status(e.getStatus()).json(e.getResponse());
  }
}

/**
 * Liveness for orchestrators: 200 when Postgres and Redis answer, 503 otherwise; workers are reported, not required.
 * Postgres is pinged on the auth pool's connection that sign-in and token checks always leave free, so a busy pool
 * elsewhere (searches, feature queries) never reads as the database being down.
 */
@Controller('health')
@UseFilters(PlainHttpFilter)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly workers: WorkersHealthIndicator,
    @InjectDataSource(AUTH_DB) private readonly authDb: DataSource,
  ) {}

  @Get()
  @NotArcgis()
  @HealthCheck()
  async check() {
    const workers = this.workers.isHealthy('workers');
    try {
      return withWorkers(
        await this.health.check([
          () => this.db.pingCheck('postgres', { connection: this.authDb, timeout: PING_MS }),
          () => this.redis.isHealthy('redis'),
        ]),
        await workers,
      );
    } catch (e) {
      const body = e instanceof HttpException ? e.getResponse() : undefined;
      if (!body || typeof body !== 'object') throw e;
      throw new HttpException(withWorkers(body as HealthCheckResult, await workers), (e as HttpException).getStatus());
    }
  }
}

import { ArgumentsHost, Catch, Controller, ExceptionFilter, Get, HttpException, Inject, Injectable, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type Redis from 'ioredis';
import { NotArcgis } from '../core/http/decorators';
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

/** Health is for orchestrators, not ArcGIS clients: it keeps terminus's body and its 503. */
@Catch(HttpException)
class PlainHttpFilter implements ExceptionFilter {
  catch(e: HttpException, host: ArgumentsHost) {
    host.switchToHttp().getResponse<Response>().status(e.getStatus()).json(e.getResponse());
  }
}

/** Liveness for orchestrators: 200 when Postgres and Redis answer, 503 otherwise. */
@Controller('health')
@UseFilters(PlainHttpFilter)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get() @NotArcgis() @HealthCheck()
  check() {
    return this.health.check([() => this.db.pingCheck('postgres', { timeout: PING_MS }), () => this.redis.isHealthy('redis')]);
  }
}

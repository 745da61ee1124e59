import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isFullAdmin } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { NotArcgis } from '../core/http/decorators';
import { requestToken } from '../core/http/token';
import { originOf } from '../identity/token-binding';
import { TokenService } from '../identity/token.service';
import { MetricsService } from './metrics.service';

const tokenOf = (req: Request) => requestToken(req.query, req.headers);

/** Digests first: timingSafeEqual needs equal lengths, and comparing digests does not reveal the token's length. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * Prometheus text, for full organisation administrators (queue depths and job figures span every user) or for the
 * configured METRICS_TOKEN. Refusals are real 401/403 with the ArcGIS envelope as body, as the Bull Board does: a
 * scraper then records a failed scrape instead of parsing an error as metrics.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly tokens: TokenService,
  ) {}

  @Get()
  @NotArcgis()
  async get(@Req() req: Request, @Res() res: Response): Promise<void> {
    const deny = (status: 401 | 403, e: ArcgisError) => void res.status(status).json(e.toEnvelope());
    const token = tokenOf(req);
    if (!token) return deny(401, Errors.tokenRequired());
    if (!(this.config.metricsToken && sameSecret(token, this.config.metricsToken))) {
      try {
        if (!isFullAdmin(await this.tokens.resolve(token, originOf(req))))
          return deny(403, Errors.forbidden('Only organisation administrators may read metrics.'));
      } catch (e) {
        if (e instanceof ArcgisError) return deny(401, e);
        throw e;
      }
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.metrics());
  }
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { errorForLog, redactUrl } from './redact';

/**
 * The request log's options: one line per request with its id (taken from X-Request-Id when a proxy set one), secrets
 * redacted. Shared by the Nest routes and by what Express serves before them (Bull Board), so both log alike.
 */
export function requestLogOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    genReqId: (req: IncomingMessage, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: errorForLog,
    },
    redact: ['req.headers.authorization', 'req.headers["x-esri-authorization"]'],
    autoLogging: { ignore: (req: IncomingMessage) => req.url?.endsWith('/health') ?? false },
  };
}

/** JSON logs (nestjs-pino), with the request log above. */
export const LoggingModule = LoggerModule.forRootAsync({
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => ({ pinoHttp: requestLogOptions(config) }),
});

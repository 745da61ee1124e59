import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { errorForLog, redactUrl } from './redact';

/** JSON logs, one line per request with its id (taken from X-Request-Id when a proxy set one). */
export const LoggingModule = LoggerModule.forRootAsync({
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => ({
    pinoHttp: {
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
    },
  }),
});

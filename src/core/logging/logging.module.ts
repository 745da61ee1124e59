import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';

/** Tokens travel in query strings (the client does that for GET); they must never reach the logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|password|auth_token)=)[^&]*/gi, '$1[redacted]');
}

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
      },
      redact: ['req.headers.authorization', 'req.headers["x-esri-authorization"]'],
      autoLogging: { ignore: (req: IncomingMessage) => req.url?.endsWith('/health') ?? false },
    },
  }),
});

import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { AppConfig } from './core/config/env';
import { arcgisBodyMiddleware } from './core/http/body';
import { cachePolicy } from './core/http/cache';
import { corsOptions } from './core/http/cors';
import { htmlRouting } from './pages/html-route';
import { originOf } from './identity/token-binding';
import { TokenService } from './identity/token.service';
import { mountBullBoard } from './ops/bull-board';
import { MetricsService } from './ops/metrics.service';

/** Builds the API application; used by main.ts and by the end-to-end tests, so both run the same stack. */
export async function createApi(config: AppConfig, opts: { quiet?: boolean } = {}): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: !opts.quiet,
    ...(opts.quiet ? { logger: false } : {}),
  });
  if (!opts.quiet) app.useLogger(app.get(Logger));
  app.set('trust proxy', config.http.trustProxy);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  app.use(app.get(MetricsService).middleware());
  app.use(cachePolicy());
  app.enableCors(corsOptions(config.http.corsCredentialOrigins));
  mountBullBoard(app, config);
  const tokens = app.get(TokenService);
  app.use(
    arcgisBodyMiddleware(config, (token, req) =>
      tokens.resolve(token, originOf(req)).then(
        () => true,
        () => false,
      ),
    ),
  );
  app.use(htmlRouting(config.contextPath));
  // Node answers "Expect: 100-continue" itself before any middleware runs, inviting a body the limits may refuse;
  // taking the event over lets the body parser send the 100 only once it means to read (curl expects before 1 MB).
  const server = app.getHttpServer() as Server;
  // Clients keep an idle connection for the server's keep-alive hint less a second. With Node's 5 s, a client that
  // reads a reply late (a busy process) sends its next request on a socket the server is closing: ECONNRESET, seen
  // under load. A longer idle time (as load balancers use) makes that race rare; headersTimeout must exceed it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  if (config.contextPath) app.setGlobalPrefix(config.contextPath.slice(1));
  return app;
}

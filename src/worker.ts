import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadConfig } from './core/config/env';
import { assertGdalDrivers, GdalInstallError } from './core/gdal-drivers';
import { closeOnSignals } from './core/shutdown';
import { errorForLog } from './core/logging/redact';
import { requiredGdalDrivers } from './gdal-check';
import { WorkerModule } from './worker.module';

/** The worker: an application context, no HTTP server. SIGTERM closes connections (and, later, hands back jobs). */
async function main() {
  const config = loadConfig();
  // Before any connection: a worker without the drivers would take jobs only to fail each one.
  assertGdalDrivers(requiredGdalDrivers());
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { bufferLogs: true });
  const logger = app.get(Logger);
  app.useLogger(logger);
  closeOnSignals(app, logger, 'Worker');
  logger.log('worker started', 'Worker');
}

main().catch((e) => {
  console.error(e instanceof ConfigError || e instanceof GdalInstallError ? e.message : errorForLog(e));
  process.exit(1);
});

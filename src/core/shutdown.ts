import { INestApplicationContext, LoggerService } from '@nestjs/common';

/**
 * SIGTERM/SIGINT close the application (connections, and from the export pipeline on, the running job) and exit 0.
 * Nest's own hooks re-raise the signal after closing, which reads as a crash to supervisors counting exit codes.
 */
export function closeOnSignals(app: INestApplicationContext, logger: LoggerService, name: string): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received, shutting down`, name);
    try {
      await app.close();
      logger.log('stopped', name);
      process.exit(0);
    } catch (e) {
      logger.error(`shutdown failed: ${(e as Error).message}`, name);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

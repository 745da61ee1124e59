import 'reflect-metadata';
import { ConfigError, loadConfig } from './core/config/env';
import { Logger } from 'nestjs-pino';
import { createApi } from './bootstrap';
import { closeOnSignals } from './core/shutdown';
import { errorForLog } from './core/logging/redact';

async function main() {
  const config = loadConfig();
  const app = await createApi(config);
  closeOnSignals(app, app.get(Logger), 'Api');
  await app.listen(config.port);
}

main().catch((e) => {
  // Config errors are the operator's to fix: print the message alone, no stack.
  console.error(e instanceof ConfigError ? e.message : errorForLog(e));
  process.exit(1);
});

import 'reflect-metadata';
import { ConfigError, loadConfig } from './core/config/env';
import { createApi } from './bootstrap';

async function main() {
  const config = loadConfig();
  const app = await createApi(config);
  await app.listen(config.port);
}

main().catch((e) => {
  // Config errors are the operator's to fix: print the message alone, no stack.
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});

/** The API as its own process, so tests can read its memory and its real log output apart from jest's. */
import 'reflect-metadata';
import { AddressInfo } from 'node:net';
import { createApi } from '../../../src/bootstrap';
import { loadConfig } from '../../../src/core/config/env';

async function main() {
  const app = await createApi(loadConfig());
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.stderr.write(`API_PORT=${port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((e) => {
  process.stderr.write(`API_FAILED ${String(e)}\n`);
  process.exit(1);
});

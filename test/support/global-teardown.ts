import Redis from 'ioredis';
import { dropDatabase } from './database';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.TEST_DATABASE_NAME;
  if (!name || process.env.KEEP_TEST_DB) return;
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  const keys = await redis.keys(`${name}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await dropDatabase(process.env.TEST_PG_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres', name);
}

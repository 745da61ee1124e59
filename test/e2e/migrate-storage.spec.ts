import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/core/config/env';
import { FileStore } from '../../src/core/storage/file-store';
import { migrateDataDir } from '../../src/core/storage/migrate-data-dir';
import { s3Client } from '../../src/core/storage/s3-client';
import { PART_SIZE } from '../../src/core/storage/s3-file-store';
import { startApp, TestApp } from '../support/app';
import { adminToken, createUser } from '../support/client';
import { bucketKeys, holdS3, s3Env } from '../support/s3';

/**
 * Moving a deployment from DATA_DIR to a bucket: `npm run storage:migrate` copies every item file under its key,
 * skips what is already there on a re-run, and reads every size back; an API on the bucket then serves the same
 * bytes from the same database rows. Runs in the local project only: it starts from a DATA_DIR by definition.
 */
describe('storage:migrate (DATA_DIR to S3)', () => {
  let local: TestApp;
  let release: () => Promise<void>;
  let env: Record<string, string>;
  const contents = new Map<string, Buffer>();
  let token: string;

  beforeAll(async () => {
    release = await holdS3();
    env = await s3Env('migrated');
    local = await startApp({ STORAGE_URL: '' });
    expect(local.config.storage.s3).toBeUndefined();
    const pub = await createUser(local.base, await adminToken(local.base), 'org_publisher');
    token = pub.token;
    for (const [name, body] of [
      ['a.csv', Buffer.from('x,y\n1,2\n')],
      ['b é.json', Buffer.from('{"b":1}')],
      ['empty.txt', Buffer.alloc(0)],
    ] as const) {
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: name, type: 'CSV', f: 'json', token })) form.set(k, v);
      form.set('file', new Blob([body]), name);
      const { id } = (await (
        await fetch(`${local.base}/content/users/${pub.username}/addItem`, { method: 'POST', body: form })
      ).json()) as {
        id: string;
      };
      contents.set(id, body);
    }
    // One larger than a part, as an export would be: copied as a multipart upload. Stored as the runner stores one.
    const big = randomBytes(PART_SIZE + 1000);
    const exportId = [...contents.keys()][0];
    const file = path.join(local.config.dataDir, 'big.bin');
    writeFileSync(file, big);
    const key = await local.app.get(FileStore).adopt(exportId, file, 'big.bin');
    expect(key).toBe(`items/${exportId}/big.bin`);
  }, 60000);
  afterAll(async () => {
    await local?.close();
    await release?.();
  });

  const settings = () => loadConfig(env).storage.s3!;

  it('copies every item file under its key, then a re-run copies nothing and verifies every size again', async () => {
    const first = await migrateDataDir(local.config.dataDir, settings());
    expect(first).toMatchObject({ files: 4, copied: 4, skipped: 0, mismatched: [] });
    expect(first.bytes).toBe(PART_SIZE + 1000 + [...contents.values()].reduce((n, b) => n + b.length, 0));
    const keys = await bucketKeys(settings().bucket);
    expect(keys).toHaveLength(4);
    for (const id of contents.keys()) expect(keys.some((k) => k.startsWith(`migrated/items/${id}/`))).toBe(true);

    const again = await migrateDataDir(local.config.dataDir, settings());
    expect(again).toMatchObject({ files: 4, copied: 0, skipped: 4, mismatched: [] });

    // Interrupted half-way: the missing object is copied, the others are left alone.
    const s3 = settings();
    await s3Client(s3).send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: keys[0] }));
    expect(await migrateDataDir(local.config.dataDir, s3)).toMatchObject({ copied: 1, skipped: 3, mismatched: [] });
  });

  it('leaves an API on the bucket serving the same bytes from the same rows', async () => {
    const onBucket = await startApp(env);
    try {
      for (const [id, body] of contents) {
        const res = await fetch(`${onBucket.base}/content/items/${id}/data?token=${token}`);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
      }
    } finally {
      await onBucket.close();
    }
  });

  it('runs as a command that reports and exits 0 when every object checks', async () => {
    const root = path.resolve(__dirname, '../..');
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/storage-migrate.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: 'tsconfig.json', DATA_DIR: local.config.dataDir, ...env },
    });
    expect(stdout).toMatch(/4 files \(\d+ bytes\): 0 copied, 4 already there; 4 verified/);
    await expect(
      promisify(execFile)(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/storage-migrate.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: 'tsconfig.json', DATA_DIR: local.config.dataDir },
      }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/Set STORAGE_URL/) });
  }, 60000);
});

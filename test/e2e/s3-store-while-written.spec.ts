import { GetObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { newId } from '../../src/core/ids';
import { PART_SIZE, S3FileStore } from '../../src/core/storage/s3-file-store';
import { s3Client } from '../../src/core/storage/s3-client';
import { bucketKeys, holdS3, s3Env, S3_CREDENTIALS, testS3 } from '../support/s3';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Storing a job's file while it is written: the upload follows the file as it grows, sends again what the writer
 * changed afterwards, and completes only with the finished file's bytes.
 * Always on s3rver, whatever the jest project: the local backend stores by rename and has nothing to overlap.
 */
describe('storing a file while it is written (S3)', () => {
  let release: () => Promise<void>;
  let store: S3FileStore;
  let bucket: string;
  let dir: string;

  beforeAll(async () => {
    release = await holdS3();
    const env = await s3Env('ahead');
    bucket = env.STORAGE_URL.slice('s3://'.length).split('/')[0];
    const { endpoint } = await testS3();
    store = new S3FileStore({
      bucket,
      prefix: 'ahead/',
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      presignedDownloadS: 0,
    });
    dir = mkdtempSync(path.join(tmpdir(), 'store-ahead-'));
  });
  afterAll(async () => {
    await release?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function object(key: string): Promise<Buffer> {
    const { endpoint } = await testS3();
    const client = s3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
    const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `ahead/${key}` }));
    return Buffer.from(await r.Body!.transformToByteArray());
  }

  it('uploads a file appended in pieces (more than two parts) and completes with exactly its bytes', async () => {
    const file = path.join(dir, 'growing.csv');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'export.csv');
    // Created after the upload started, then appended to in pieces smaller and larger than a part.
    await sleep(30);
    writeFileSync(file, 'header\n');
    for (let i = 0; i < 12; i++) {
      appendFileSync(file, randomBytes(i % 3 === 0 ? PART_SIZE + 12345 : 300_000));
      await sleep(5);
    }
    const whole = readFileSync(file);
    // Renamed before finishing, as the export renames its staged file into place: the reader keeps its descriptor.
    const moved = path.join(dir, 'export.csv');
    renameSync(file, moved);
    const key = await flight.finish(moved, whole.length);
    expect(key).toBe(`items/${itemId}/export.csv`);
    expect((await object(key)).equals(whole)).toBe(true);
    expect(existsSync(moved)).toBe(false);
  }, 60000);

  it('sends again the parts the writer changed after they were sent, completing with the finished bytes', async () => {
    const file = path.join(dir, 'rewritten.gpkg');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'out.gpkg');
    writeFileSync(file, randomBytes(3 * PART_SIZE + 1000));
    await sleep(1500); // the first three parts are sent
    // The writer goes back and patches its header and a page in the middle, as SQLite does on commit.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('PATCHED'), 0, 7, 0);
    writeSync(fd, Buffer.from('PAGE'), 0, 4, PART_SIZE + 4096);
    closeSync(fd);
    appendFileSync(file, randomBytes(5000));
    const whole = readFileSync(file);
    const key = await flight.finish(file, whole.length);
    expect((await object(key)).equals(whole)).toBe(true);
  }, 60000);

  it('replaces a file written anew in its place (the reader kept the old one open)', async () => {
    const file = path.join(dir, 'replaced.fgb');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'out.fgb');
    writeFileSync(file, randomBytes(PART_SIZE + 10));
    await sleep(500);
    rmSync(file);
    const fresh = randomBytes(2 * PART_SIZE + 77);
    writeFileSync(file, fresh);
    const key = await flight.finish(file, fresh.length);
    expect((await object(key)).equals(fresh)).toBe(true);
  }, 60000);

  it('stores a file smaller than a part with one request', async () => {
    const file = path.join(dir, 'small.csv');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'small.csv');
    writeFileSync(file, 'a,b\n1,2\n');
    const key = await flight.finish(file, 8);
    expect((await object(key)).toString()).toBe('a,b\n1,2\n');
    await expect(store.storeWhileWritten(newId(), file + '.none', 'x.csv').finish(file + '.none', 0)).rejects.toThrow();
  }, 60000);

  it('leaves nothing behind when the job aborts its upload before finishing', async () => {
    const file = path.join(dir, 'abandoned.bin');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'gone.bin');
    writeFileSync(file, randomBytes(2 * PART_SIZE + 10));
    await sleep(500);
    await flight.abort();
    expect((await bucketKeys(bucket)).filter((k) => k.includes(itemId))).toEqual([]);
  }, 60000);
});

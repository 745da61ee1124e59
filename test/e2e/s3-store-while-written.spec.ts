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
import { GrowingFileMismatch, GrowingFileReader, fileCrc32 } from '../../src/core/storage/growing-file';
import { PART_SIZE, S3FileStore } from '../../src/core/storage/s3-file-store';
import { s3Client } from '../../src/core/storage/s3-client';
import { bucketKeys, holdS3, s3Env, S3_CREDENTIALS, testS3 } from '../support/s3';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Storing a job's file while it is written (an export's COPY-written CSV): the upload follows the file as it grows
 * and completes only with the finished file's bytes; a file that changed behind the reader never becomes an object.
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

  it('never completes the object when bytes already read are changed afterwards, and aborts the upload', async () => {
    const file = path.join(dir, 'rewritten.bin');
    const itemId = newId();
    const flight = store.storeWhileWritten(itemId, file, 'out.bin');
    writeFileSync(file, randomBytes(PART_SIZE + 1000));
    await sleep(300); // the reader takes the first part
    // The writer goes back and patches its header, as a zip or GeoPackage writer does.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('PATCHED'), 0, 7, 0);
    closeSync(fd);
    await expect(flight.finish(file, PART_SIZE + 1000)).rejects.toBeInstanceOf(GrowingFileMismatch);
    expect((await bucketKeys(bucket)).filter((k) => k.includes(itemId))).toEqual([]);
    // The caller then stores the file the usual way.
    const key = await store.adopt(itemId, file, 'out.bin');
    expect((await object(key)).subarray(0, 7).toString()).toBe('PATCHED');
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

  it('reads a growing file to its final size and checks its CRC', async () => {
    const file = path.join(dir, 'reader.txt');
    const reader = new GrowingFileReader(file);
    const chunks: Buffer[] = [];
    reader.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((resolve, reject) => reader.on('end', resolve).on('error', reject));
    writeFileSync(file, 'a');
    await sleep(30);
    appendFileSync(file, 'bc');
    await sleep(30);
    appendFileSync(file, 'def');
    reader.finish(6, await fileCrc32(file));
    await ended;
    expect(Buffer.concat(chunks).toString()).toBe('abcdef');

    const short = new GrowingFileReader(file);
    short.resume();
    const failed = new Promise((resolve) => short.on('error', resolve));
    short.finish(10, 0);
    expect(await failed).toBeInstanceOf(GrowingFileMismatch);
  });
});

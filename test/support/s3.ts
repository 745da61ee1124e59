import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { s3Client } from '../../src/core/storage/s3-client';

/**
 * The storage the suites run on: the local filesystem, or with TEST_STORAGE=s3 (the jest project 's3' sets it) an
 * s3rver on loopback, started once per test file, with a bucket of its own for each app.
 */
export const onS3 = () => process.env.TEST_STORAGE === 's3';

export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  endpoint: string;
  /** Stops the server (a fault test) or starts it again on the same port and folder. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

let server: Promise<TestS3 & { close(): Promise<void> }> | undefined;
let users = 0;

/** The test file's s3rver, started on first use; held until every holder released it (release() below). */
export function testS3(): Promise<TestS3> {
  server ??= (async () => {
    // Loaded only on S3 runs: the local suites never pay for s3rver's start-up.
    const { default: S3rver } = await import('s3rver');
    const directory = mkdtempSync(path.join(tmpdir(), 'arcgis-s3rver-'));
    let port = 0;
    let running: InstanceType<typeof S3rver> | undefined;
    const start = async () => {
      running = new S3rver({ address: '127.0.0.1', port, directory, silent: true });
      port = (await running.run()).port;
    };
    const stop = async () => {
      await running?.close();
      running = undefined;
    };
    await start();
    return {
      endpoint: `http://127.0.0.1:${port}`,
      start,
      stop,
      close: async () => {
        await stop();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  })();
  return server;
}

/** Counts a holder of the server (an app); the last release stops it, so jest is not kept alive by its socket. */
export async function holdS3(): Promise<() => Promise<void>> {
  users++;
  await testS3();
  return async () => {
    if (--users > 0 || !server) return;
    const s = server;
    server = undefined;
    await (await s).close();
  };
}

/** A fresh bucket on the test server, and the variables that make an app use it. */
export async function s3Env(prefix = 'data'): Promise<Record<string, string>> {
  const { endpoint } = await testS3();
  const bucket = `test-${randomBytes(6).toString('hex')}`;
  const env = {
    STORAGE_URL: `s3://${bucket}/${prefix}`,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
  };
  await s3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS }).send(
    new CreateBucketCommand({ Bucket: bucket }),
  );
  return env;
}

/** Every key in a bucket (for "nothing left behind" checks). */
export async function bucketKeys(bucket: string): Promise<string[]> {
  const { endpoint } = await testS3();
  const client = s3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    keys.push(...(r.Contents ?? []).map((o) => o.Key!));
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

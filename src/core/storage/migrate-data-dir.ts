import { HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { S3Settings } from '../config/env';
import { FileStore } from './file-store';
import { OCTET_STREAM } from './item-mime';
import { s3Client } from './s3-client';
import { PART_QUEUE, PART_SIZE } from './s3-file-store';

export interface MigrationReport {
  files: number;
  bytes: number;
  copied: number;
  /** Already in the bucket with the same size: a re-run copies nothing twice. */
  skipped: number;
  /** Keys whose object, read back after the copy, does not have the file's size. */
  mismatched: string[];
}

/** Files copied at once: each is a multipart upload of PART_QUEUE parts in flight. */
const PARALLEL = 4;

/**
 * Copies DATA_DIR's item files (items/<itemId>/<name>, and the item's resources and info files below it) group and user
 * thumbnails to the bucket under the same keys, which the items table
 * already stores, so switching STORAGE_URL needs no database change. Idempotent: an object that already has the
 * file's size is left alone. Every object is then read back (HEAD) and its size compared with the file's. Local
 * files are never removed: that is the operator's step once the deployment runs on the bucket.
 */
export async function migrateDataDir(
  dataDir: string,
  s3: S3Settings,
  log: (line: string) => void = () => undefined,
  client: S3Client = s3Client(s3),
): Promise<MigrationReport> {
  const report: MigrationReport = { files: 0, bytes: 0, copied: 0, skipped: 0, mismatched: [] };
  const files = await itemFiles(path.resolve(dataDir));
  const size = async (key: string): Promise<number | undefined> => {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3.prefix + key }))).ContentLength;
    } catch (e) {
      if (e instanceof S3ServiceException && e.$metadata.httpStatusCode === 404) return undefined;
      throw e;
    }
  };
  const copyOne = async ({ key, file, bytes }: ItemFile) => {
    report.files++;
    report.bytes += bytes;
    if ((await size(key)) === bytes) {
      report.skipped++;
      return;
    }
    await new Upload({
      client,
      params: { Bucket: s3.bucket, Key: s3.prefix + key, Body: createReadStream(file), ContentType: OCTET_STREAM },
      partSize: PART_SIZE,
      queueSize: PART_QUEUE,
      leavePartsOnError: false,
    }).done();
    report.copied++;
    log(`copied ${key} (${bytes} bytes)`);
  };
  await inParallel(files, copyOne);
  await inParallel(files, async ({ key, bytes }) => {
    const stored = await size(key);
    if (stored !== bytes) report.mismatched.push(key);
  });
  return report;
}

interface ItemFile {
  key: string;
  file: string;
  bytes: number;
}

/**
 * Every file under items/<itemId>/ (its folders of resources and info files, .resources and .info, included) and under
 * groups/<groupId>/ and users/<userId>/ (FileStore.groupKey, userKey): ids are 32 hex characters.
 */
async function itemFiles(root: string): Promise<ItemFile[]> {
  const out: ItemFile[] = [];
  const walk = async (dir: string, key: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(file, `${key}/${entry.name}`);
      else if (entry.isFile()) out.push({ key: `${key}/${entry.name}`, file, bytes: (await fs.stat(file)).size });
    }
  };
  for (const folder of ['items', 'groups', 'users']) {
    for (const id of await fs.readdir(path.join(root, folder)).catch(() => [] as string[])) {
      if (FileStore.isItemId(id)) await walk(path.join(root, folder, id), `${folder}/${id}`);
    }
  }
  return out;
}

async function inParallel<T>(list: T[], run: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, list.length) }, async () => {
      while (next < list.length) await run(list[next++]);
    }),
  );
}

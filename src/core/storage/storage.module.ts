import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { FileStore } from './file-store';
import { LocalFileStore } from './local-file-store';
import { StorageSweeper } from './storage-sweeper';

/**
 * Creates the configured backend: S3 when STORAGE_URL names a bucket, else DATA_DIR. The AWS SDK is loaded only
 * for S3: it lengthens every process start.
 */
export async function createFileStore(config: AppConfig): Promise<FileStore> {
  if (!config.storage.s3) return new LocalFileStore(config.dataDir);
  const { S3FileStore } = await import('./s3-file-store');
  return new S3FileStore(config.storage.s3);
}

/** Item files, for every module of both processes (uploads, downloads, job results), and their periodic sweep. */
@Global()
@Module({
  providers: [{ provide: FileStore, useFactory: createFileStore, inject: [APP_CONFIG] }, StorageSweeper],
  exports: [FileStore, StorageSweeper],
})
export class StorageModule {}

import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { FileStore } from './file-store';
import { LocalFileStore } from './local-file-store';
import { S3FileStore } from './s3-file-store';
import { StorageSweeper } from './storage-sweeper';

/** Creates the configured backend: S3 when STORAGE_URL names a bucket, else DATA_DIR. */
export function createFileStore(config: AppConfig): FileStore {
  return config.storage.s3 ? new S3FileStore(config.storage.s3) : new LocalFileStore(config.dataDir);
}

/** Item files, for every module of both processes (uploads, downloads, job results), and their periodic sweep. */
@Global()
@Module({
  providers: [{ provide: FileStore, useFactory: createFileStore, inject: [APP_CONFIG] }, StorageSweeper],
  exports: [FileStore, StorageSweeper],
})
export class StorageModule {}

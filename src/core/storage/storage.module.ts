import { Global, Module } from '@nestjs/common';
import { FileStore } from './file-store';

/** Item files, for every module of both processes (uploads, downloads, job results). */
@Global()
@Module({ providers: [FileStore], exports: [FileStore] })
export class StorageModule {}

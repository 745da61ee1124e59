import { Module } from '@nestjs/common';
import { FileStore } from '../../content/file-store';
import { FeaturesRepository } from '../../features/features.repository';
import { ExportProcessor } from './export.processor';

/** Loaded by the worker process only: importing it starts consuming the export queue. */
@Module({ providers: [ExportProcessor, FeaturesRepository, FileStore] })
export class ExportWorkerModule {}

import { Module } from '@nestjs/common';
import { ContentRepository } from '../../../content/content.repository';
import { FileStore } from '../../../content/file-store';
import { FeaturesRepository } from '../../features.repository';
import { PublishProcessor } from './publish.processor';

/** Loaded by the worker process only: importing it starts consuming the publish queue. */
@Module({ providers: [PublishProcessor, FeaturesRepository, ContentRepository, FileStore] })
export class PublishWorkerModule {}

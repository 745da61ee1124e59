import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { FeatureServerModule } from '../feature-server/feature-server.module';
import { PublishController } from './publish.controller';
import { PublishRequestService } from './publish-request.service';

/** The API side of publishing: check the file, create the service item, enqueue. The loader runs in the worker (publish.job.ts). */
@Module({
  imports: [ContentModule, FeatureServerModule],
  controllers: [PublishController],
  providers: [PublishRequestService],
})
export class PublishModule {}

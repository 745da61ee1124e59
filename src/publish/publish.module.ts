import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { FeaturesModule } from '../features/features.module';
import { PublishController } from './publish.controller';
import { PublishRequestService } from './publish-request.service';

/** The API side of publishing: check the file, create the service item, enqueue. The loader runs in the worker (publish.job.ts). */
@Module({
  imports: [ContentModule, FeaturesModule],
  controllers: [PublishController],
  providers: [PublishRequestService],
})
export class PublishModule {}

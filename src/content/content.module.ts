import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { ItemListRepository } from './item-list.repository';
import { UploadController } from './upload.controller';
import { UploadRepository } from './upload.repository';
import { UploadService } from './upload.service';

@Module({
  imports: [IdentityModule],
  controllers: [ContentController, UploadController],
  providers: [ContentRepository, ItemListRepository, ContentService, UploadRepository, UploadService],
  exports: [ContentService, ContentRepository],
})
export class ContentModule {}

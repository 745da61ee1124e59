import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { ItemDeleteGuards } from './delete-guards';
import { ItemListRepository } from './item-list.repository';
import { ItemDetailsController } from './item-details.controller';
import { ItemEditors } from './item-editors';
import { ItemFilesRepository } from './item-files.repository';
import { ItemResourcesService } from './item-resources.service';
import { ItemUpdateService } from './item-update.service';
import { UploadController } from './upload.controller';
import { UploadRepository } from './upload.repository';
import { UploadService } from './upload.service';

@Module({
  imports: [IdentityModule],
  controllers: [ContentController, ItemDetailsController, UploadController],
  providers: [
    ContentRepository,
    ItemListRepository,
    ContentService,
    ItemEditors,
    ItemFilesRepository,
    ItemUpdateService,
    ItemResourcesService,
    UploadRepository,
    UploadService,
    ItemDeleteGuards,
  ],
  exports: [ContentService, ContentRepository, ItemDeleteGuards],
})
export class ContentModule {}

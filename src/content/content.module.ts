import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { ItemListRepository } from './item-list.repository';

@Module({
  imports: [IdentityModule],
  controllers: [ContentController],
  providers: [ContentRepository, ItemListRepository, ContentService],
  exports: [ContentService, ContentRepository],
})
export class ContentModule {}

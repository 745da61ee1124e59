import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { FileStore } from './file-store';

@Module({
  imports: [IdentityModule],
  controllers: [ContentController],
  providers: [ContentRepository, ContentService, FileStore],
  exports: [ContentService, ContentRepository],
})
export class ContentModule {}

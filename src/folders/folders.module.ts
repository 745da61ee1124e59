import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { IdentityModule } from '../identity/identity.module';
import { SharingModule } from '../sharing/sharing.module';
import { FoldersController } from './folders.controller';
import { FoldersRepository } from './folders.repository';
import { FoldersService } from './folders.service';

/**
 * Folders and where items sit: folder rows, listings, move and reassign. Imported last by AppModule: its route
 * `content/users/<u>/<folderId>` would otherwise shadow the fixed operations other modules serve at that depth.
 */
@Module({
  imports: [IdentityModule, ContentModule, SharingModule],
  controllers: [FoldersController],
  providers: [FoldersRepository, FoldersService],
})
export class FoldersModule {}

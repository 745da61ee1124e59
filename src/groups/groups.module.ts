import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';
import { ItemGroupsController } from './item-groups.controller';
import { ItemGroupsService } from './item-groups.service';

@Module({
  imports: [ContentModule],
  controllers: [GroupsController, ItemGroupsController],
  providers: [GroupsRepository, GroupsService, ItemGroupsService],
  exports: [GroupsService],
})
export class GroupsModule {}

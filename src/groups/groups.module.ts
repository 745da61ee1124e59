import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { GroupListRepository } from './group-list.repository';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';
import { ItemGroupsController } from './item-groups.controller';
import { ItemGroupsService } from './item-groups.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';

@Module({
  imports: [ContentModule],
  controllers: [GroupsController, MembersController, ItemGroupsController],
  providers: [GroupsRepository, GroupListRepository, GroupsService, MembersService, ItemGroupsService],
  // MembersService.managedGroupMembers: a managed group's members, for modules that act on them (notifications).
  exports: [GroupsService, MembersService],
})
export class GroupsModule {}

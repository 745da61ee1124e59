import { Controller, Param, Post } from '@nestjs/common';
import { PageDto, SearchDto } from '../content/content.dto';
import { Caller } from '../core/auth/caller';
import { CurrentCaller, Operation, OptionalCaller, PageLink, Public } from '../core/http/decorators';
import { GroupIdPipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddUsersDto, CreateGroupDto, RemoveUsersDto, UpdateMembershipsDto } from './groups.dto';
import { GroupsService } from './groups.service';

@Controller('sharing/rest')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post('community/createGroup')
  create(@CurrentCaller() caller: Caller, @Params(CreateGroupDto) p: CreateGroupDto) {
    return this.groups.create(caller, p);
  }

  @Public()
  @PageLink()
  @Operation('community/groups/:id')
  info(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string) {
    return this.groups.info(caller, id);
  }

  @Public()
  @Operation('content/groups/:id')
  content(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string, @Params(PageDto) page: PageDto) {
    return this.groups.content(caller, id, page);
  }

  /** Searching a group's content needs the group to be visible first, as its content listing does. */
  @Public()
  @Operation('content/groups/:id/search')
  search(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string, @Params(SearchDto) p: SearchDto) {
    return this.groups.search(caller, id, p);
  }

  @Post('community/groups/:id/addUsers')
  addUsers(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(AddUsersDto) p: AddUsersDto) {
    return this.groups.addUsers(caller, id, p);
  }

  @Post('community/groups/:id/removeUsers')
  removeUsers(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(RemoveUsersDto) p: RemoveUsersDto) {
    return this.groups.removeUsers(caller, id, p);
  }

  @Post('community/groups/:id/updateUserMemberships')
  updateMemberships(
    @CurrentCaller() caller: Caller,
    @Param('id', GroupIdPipe) id: string,
    @Params(UpdateMembershipsDto) p: UpdateMembershipsDto,
  ) {
    return this.groups.updateMemberships(caller, id, p);
  }

  @Post('community/groups/:id/delete')
  delete(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.groups.delete(caller, id);
  }
}

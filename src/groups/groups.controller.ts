import { Controller, Post, Req } from '@nestjs/common';
import { PageDto, SearchDto } from '../content/content.dto';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { groupIdParam } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddUsersDto, CreateGroupDto, RemoveUsersDto, UpdateMembershipsDto } from './groups.dto';
import { GroupsService } from './groups.service';

const gid = (req: ArcgisRequest) => groupIdParam(req.params.id as string);

@Controller('sharing/rest')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post('community/createGroup')
  create(@CurrentCaller() caller: Caller, @Params(CreateGroupDto) p: CreateGroupDto) {
    return this.groups.create(caller, p);
  }

  @Public()
  @Operation('community/groups/:id')
  info(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    return this.groups.info(caller, gid(req));
  }

  @Public()
  @Operation('content/groups/:id')
  content(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest, @Params(PageDto) page: PageDto) {
    return this.groups.content(caller, gid(req), page);
  }

  /** Searching a group's content needs the group to be visible first, as its content listing does. */
  @Public()
  @Operation('content/groups/:id/search')
  search(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest, @Params(SearchDto) p: SearchDto) {
    return this.groups.search(caller, gid(req), p);
  }

  @Post('community/groups/:id/addUsers')
  addUsers(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(AddUsersDto) p: AddUsersDto) {
    return this.groups.addUsers(caller, gid(req), p);
  }

  @Post('community/groups/:id/removeUsers')
  removeUsers(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(RemoveUsersDto) p: RemoveUsersDto) {
    return this.groups.removeUsers(caller, gid(req), p);
  }

  @Post('community/groups/:id/updateUserMemberships')
  updateMemberships(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(UpdateMembershipsDto) p: UpdateMembershipsDto) {
    return this.groups.updateMemberships(caller, gid(req), p);
  }

  @Post('community/groups/:id/delete')
  delete(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    return this.groups.delete(caller, gid(req));
  }
}

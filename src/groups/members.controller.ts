import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller, Operation } from '../core/http/decorators';
import { GroupIdPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddUsersDto, InviteDto, RemoveUsersDto, UpdateUsersDto, UserListDto } from './members.dto';
import { MembersService } from './members.service';

@Controller('sharing/rest')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Operation('community/groups/:id/users')
  users(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.members.users(caller, id);
  }

  @Operation('community/groups/:id/userlist')
  userList(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(UserListDto) p: UserListDto) {
    return this.members.userList(caller, id, p);
  }

  @Post('community/groups/:id/addUsers')
  addUsers(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(AddUsersDto) p: AddUsersDto) {
    return this.members.addUsers(caller, id, p);
  }

  @Post('community/groups/:id/removeUsers')
  removeUsers(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(RemoveUsersDto) p: RemoveUsersDto) {
    return this.members.removeUsers(caller, id, p);
  }

  @Post('community/groups/:id/updateUsers')
  updateUsers(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(UpdateUsersDto) p: UpdateUsersDto) {
    return this.members.updateUsers(caller, id, p);
  }

  @Post('community/groups/:id/join')
  join(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.members.join(caller, id);
  }

  @Post('community/groups/:id/leave')
  leave(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.members.leave(caller, id);
  }

  @Post('community/groups/:id/invite')
  invite(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(InviteDto) p: InviteDto) {
    return this.members.invite(caller, id, p);
  }

  @Operation('community/groups/:id/applications')
  applications(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.members.applications(caller, id);
  }

  @Operation('community/groups/:id/applications/:username')
  application(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Param('username', UsernamePipe) username: string) {
    return this.members.application(caller, id, username);
  }

  @Post('community/groups/:id/applications/:username/accept')
  acceptApplication(
    @CurrentCaller() caller: Caller,
    @Param('id', GroupIdPipe) id: string,
    @Param('username', UsernamePipe) username: string,
  ) {
    return this.members.acceptApplication(caller, id, username);
  }

  @Post('community/groups/:id/applications/:username/decline')
  declineApplication(
    @CurrentCaller() caller: Caller,
    @Param('id', GroupIdPipe) id: string,
    @Param('username', UsernamePipe) username: string,
  ) {
    return this.members.declineApplication(caller, id, username);
  }

  @Operation('community/users/:username/invitations')
  invitations(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string) {
    return this.members.invitations(caller, username);
  }

  @Operation('community/users/:username/invitations/:invitationId')
  invitation(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string, @Param('invitationId') id: string) {
    return this.members.invitation(caller, username, id);
  }

  @Post('community/users/:username/invitations/:invitationId/accept')
  acceptInvitation(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string, @Param('invitationId') id: string) {
    return this.members.acceptInvitation(caller, username, id);
  }

  @Post('community/users/:username/invitations/:invitationId/decline')
  declineInvitation(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string, @Param('invitationId') id: string) {
    return this.members.declineInvitation(caller, username, id);
  }
}

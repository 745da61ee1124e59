import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller, Operation } from '../core/http/decorators';
import { GroupIdPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { GroupNotificationDto, NotificationsPageDto, OrgNotificationDto } from './notifications.dto';
import { NotificationsService } from './notifications.service';

@Controller('sharing/rest')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Operation('community/users/:username/notifications')
  list(
    @CurrentCaller() caller: Caller,
    @Param('username', UsernamePipe) username: string,
    @Params(NotificationsPageDto) page: NotificationsPageDto,
  ) {
    return this.notifications.list(caller, username, page);
  }

  @Operation('community/users/:username/notifications/:id')
  get(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string, @Param('id') id: string) {
    return this.notifications.get(caller, username, id);
  }

  @Post('community/users/:username/notifications/:id/delete')
  remove(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string, @Param('id') id: string) {
    return this.notifications.remove(caller, username, id);
  }

  @Post('community/groups/:id/createNotification')
  toGroup(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string, @Params(GroupNotificationDto) p: GroupNotificationDto) {
    return this.notifications.toGroup(caller, id, p);
  }

  @Post('portals/:portalId/createNotification')
  toOrg(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(OrgNotificationDto) p: OrgNotificationDto) {
    return this.notifications.toOrg(caller, portalId, p);
  }
}

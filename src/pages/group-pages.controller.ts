import { Controller, Get, Inject, Req, UseFilters } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Caller, can, isAdminFor, isFullAdmin, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Formats, OptionalCaller, Public } from '../core/http/decorators';
import { groupIdParam } from '../core/http/id-params';
import { PageDto } from '../core/http/paging';
import { Params } from '../core/http/params.decorator';
import { GroupsService } from '../groups/groups.service';
import { UserListDto } from '../groups/members.dto';
import { MembersService } from '../groups/members.service';
import { usersPage, webhooksPage } from './admin-pages';
import { GROUP_TABS, GroupRights, GroupTab, GroupView, groupHomePage } from './group-pages';
import { HtmlErrorsFilter } from './html-errors.filter';
import { PORTAL_HTML_ROUTES } from './html-route';
import { pageContext } from './page-context';

export class GroupPageDto extends PageDto {
  @IsString({ message: "'id' is required." }) id: string;
  @IsOptional() @IsIn(GROUP_TABS, { message: `'tab' must be one of ${GROUP_TABS.join(', ')}.` }) tab: GroupTab = 'overview';
}

/** How many rows a tab lists at once. */
const ROWS = 50;

/**
 * `{CONTEXT_PATH}/home/<name>.html` (html-route.ts routes them here as pages): the group page with its tabs, and the
 * administrators' webhooks and users pages. What they show is what the group, webhook and user operations answer the
 * same caller; their changes go through those operations from the pages' scripts.
 */
@Controller(`${PORTAL_HTML_ROUTES}/home`)
@UseFilters(HtmlErrorsFilter)
export class GroupPagesController {
  constructor(
    private readonly groups: GroupsService,
    private readonly members: MembersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Formats('html')
  @Get('group')
  async group(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest, @Params(GroupPageDto) p: GroupPageDto) {
    const id = groupIdParam(p.id);
    const group = await this.groups.info(caller, id);
    const type = group.userMembership.memberType;
    const groupAdmin = isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups);
    const rights: GroupRights = { manage: type === 'owner' || type === 'admin' || groupAdmin, roles: type === 'owner' || groupAdmin };
    const tab = p.tab === 'settings' && !rights.manage ? 'overview' : p.tab;
    const view: GroupView = { group, tab, rights };
    const page = { start: p.start, num: ROWS };
    try {
      if (tab === 'content') view.items = await this.groups.content(caller, id, page);
      if (tab === 'members') {
        if (!caller) throw Errors.tokenRequired();
        view.members = await this.members.userList(caller, id, Object.assign(new UserListDto(), page));
      }
    } catch (e) {
      // The tab shows the operation's refusal in place, under the group's own tabs.
      if (!(e instanceof ArcgisError)) throw e;
      view.error = e.message;
    }
    return groupHomePage(pageContext(req, this.config), view);
  }

  @Formats('html')
  @Get('webhooks')
  webhooks(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    // The webhook operations are for full administrators only; the page says so before any script runs.
    if (!isFullAdmin(caller)) throw Errors.forbidden('Only full administrators may manage webhooks.');
    return webhooksPage(pageContext(req, this.config));
  }

  @Formats('html')
  @Get('users')
  users(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    if (!can(caller, Privilege.AdminViewUsers) && !can(caller, Privilege.AdminUsers)) {
      throw Errors.forbidden('Only administrators of the organization may list its users.');
    }
    return usersPage(pageContext(req, this.config));
  }
}

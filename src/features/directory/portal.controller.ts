import { Controller, Inject, Param, Req, UseFilters } from '@nestjs/common';
import { PageDto } from '../../content/content.dto';
import { ContentService } from '../../content/content.service';
import { Caller, isAdminFor, Privilege } from '../../core/auth/caller';
import { APP_CONFIG } from '../../core/config/config.module';
import { AppConfig } from '../../core/config/env';
import { ArcgisRequest } from '../../core/http/arcgis-request';
import { CurrentCaller, Formats, Operation, OptionalCaller, Public } from '../../core/http/decorators';
import { GroupIdPipe, ItemIdPipe, UsernamePipe } from '../../core/http/id-params';
import { Params } from '../../core/http/params.decorator';
import { FORMATS } from '../../export/writer/formats';
import { GroupsService } from '../../groups/groups.service';
import { FeaturesRepository } from '../features.repository';
import { HtmlErrorsFilter } from './html-errors.filter';
import { PORTAL_HTML_ROUTES } from './html-route';
import { pageContext } from './page-context';
import { ExportChoices, groupPage, Item, itemPage, signInPage, userContentPage } from './portal-pages';

/**
 * Portal pages (`f=html` on an item, a group, a user's content, and generateToken's sign-in form), drawn from what
 * the content and groups services answer the same caller as JSON.
 */
@Controller(PORTAL_HTML_ROUTES)
@UseFilters(HtmlErrorsFilter)
export class PortalPagesController {
  constructor(
    private readonly content: ContentService,
    private readonly groups: GroupsService,
    private readonly services: FeaturesRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A group the item is shared with shows only to those the groups service would show it to. */
  @Public()
  @Formats('html')
  @Operation('items/:id')
  async item(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string, @Req() req: ArcgisRequest) {
    const item = await this.content.item(caller, id);
    return itemPage(pageContext(req, this.config), item, await this.groups.sharedWith(caller, id), await this.exportChoices(caller, item));
  }

  /** The export form shows where `export` would accept it: a hosted service, to its owner or an administrator. */
  private async exportChoices(caller: Caller | undefined, item: Item): Promise<ExportChoices | undefined> {
    if (!caller || item.type !== 'Feature Service') return undefined;
    if (item.owner !== caller.username && !isAdminFor(caller, item.orgId, Privilege.AdminViewItems)) return undefined;
    const layers = await this.services.layers(item.id);
    return {
      formats: Object.values(FORMATS).map((f) => f.name),
      layers: layers.map((l) => ({ id: l.layer_id, name: l.name, kind: l.kind })),
    };
  }

  @Public()
  @Formats('html')
  @Operation('groups/:id')
  async group(
    @OptionalCaller() caller: Caller | undefined,
    @Param('id', GroupIdPipe) id: string,
    @Req() req: ArcgisRequest,
    @Params(PageDto) page: PageDto,
  ) {
    const group = await this.groups.info(caller, id);
    return groupPage(pageContext(req, this.config), group, await this.groups.content(caller, id, page));
  }

  @Formats('html')
  @Operation('users/:owner')
  async userContent(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Req() req: ArcgisRequest,
    @Params(PageDto) page: PageDto,
  ) {
    return userContentPage(pageContext(req, this.config), await this.content.userContent(caller, owner, page));
  }

  @Public()
  @Formats('html')
  @Operation('signin')
  signIn(@Req() req: ArcgisRequest) {
    return signInPage(pageContext(req, this.config));
  }
}

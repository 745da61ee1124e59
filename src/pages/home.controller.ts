import { Controller, Inject, Req, UseFilters } from '@nestjs/common';
import { OwnerItemsDto } from '../content/content.dto';
import { ContentService } from '../content/content.service';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Formats, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { PageDto } from '../core/http/paging';
import { validateParams } from '../core/http/params.decorator';
import { ExportService } from '../export/export.service';
import { contentPage } from './content-page';
import { exportsPage } from './exports-page';
import { HtmlErrorsFilter } from './html-errors.filter';
import { PORTAL_HTML_ROUTES } from './html-route';
import { groupsPage, landingPage } from './home-pages';
import { pageContext } from './page-context';
import { ShareTargets } from './share-targets';

/** Rows a page lists unless asked otherwise: more than the API's 10, as people scan a table. */
const PAGE_ROWS = '50';

/** The filter form's fields as the search takes them: blanks are "any", and `sort` is field and order in one. */
function contentParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { num: PAGE_ROWS };
  for (const [k, v] of Object.entries(params)) if (v.trim() !== '') out[k] = v;
  if (out.sort) [out.sortField, out.sortOrder] = out.sort.split(':');
  return out;
}

/**
 * The pages with no JSON of their own ({CONTEXT_PATH}/home/<name>.html, and the landing page at `/`, the context
 * path and `sharing/rest` for a browser; see html-route.ts): each is drawn from the services the REST operations use,
 * for the same caller, and acts only through those operations from its scripts.
 */
@Controller(`${PORTAL_HTML_ROUTES}/home`)
@UseFilters(HtmlErrorsFilter)
export class HomePagesController {
  constructor(
    private readonly content: ContentService,
    private readonly exports: ExportService,
    private readonly targets: ShareTargets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Formats('html')
  @Operation('index')
  async landing(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    const groups = caller ? await this.targets.memberOf(caller) : [];
    return landingPage(pageContext(req, this.config), groups);
  }

  /** My content; an administrator names another owner with `user`. */
  @Formats('html')
  @Operation('content')
  async myContent(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    const p = validateParams(OwnerItemsDto, contentParams(req.arcParams));
    const owner = req.arcParams.user?.trim() || caller.username;
    const [list, groups] = await Promise.all([this.content.ownerItems(caller, owner, p), this.targets.memberOf(caller)]);
    return contentPage(pageContext(req, this.config), list, p, groups, this.config.limits.shareMaxItems);
  }

  @Formats('html')
  @Operation('exports')
  async exportJobs(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    const p = validateParams(PageDto, { num: PAGE_ROWS, ...req.arcParams });
    const owner = req.arcParams.user?.trim() || caller.username;
    return exportsPage(pageContext(req, this.config), await this.exports.list(caller, owner, p.start, p.num));
  }

  @Formats('html')
  @Operation('groups')
  async groups(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    return groupsPage(pageContext(req, this.config), await this.targets.memberOf(caller));
  }
}

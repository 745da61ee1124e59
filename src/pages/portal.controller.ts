import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { PageDto } from '../content/content.dto';
import { ContentService } from '../content/content.service';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError } from '../core/errors/arcgis-error';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { CurrentCaller, Formats, Operation, OptionalCaller, Public, RawResponse } from '../core/http/decorators';
import { HTML_HEADERS } from '../core/http/html-reply';
import { GroupIdPipe, ItemIdPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { ExportService } from '../export/export.service';
import { FORMAT_CATALOGUE } from '../export/formats';
import { GroupsService } from '../groups/groups.service';
import { PageSessions } from '../identity/page-sessions';
import { LayersRepository } from '../layers/layers.repository';
import { HtmlErrorsFilter } from './html-errors.filter';
import { PORTAL_HTML_ROUTES } from './html-route';
import { signInTarget } from './next-url';
import { ShareTargets } from './share-targets';
import { ItemExtras } from './sharing-panel';
import { pageContext, pagesBase } from './page-context';
import { ExportChoices, groupPage, itemPage, SignInState, signInPage, userContentPage } from './portal-pages';
import { Item } from './text';

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
    private readonly services: LayersRepository,
    private readonly sessions: PageSessions,
    private readonly targets: ShareTargets,
    private readonly exports: ExportService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A group the item is shared with shows only to those the groups service would show it to. */
  @Public()
  @Formats('html')
  @Operation('items/:id')
  async item(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string, @Req() req: ArcgisRequest) {
    const item = await this.content.item(caller, id);
    // The form acts through the page session only, so a page drawn for a token in its URL shows none.
    const exporter = req.pageSession ? caller : undefined;
    return itemPage(
      pageContext(req, this.config),
      item,
      await this.groups.sharedWith(caller, id),
      await this.exportChoices(exporter, item),
      await this.extras(exporter, item),
    );
  }

  /** The sharing panel for the owner and administrators, and the exports of a service the user made (page session only). */
  private async extras(caller: Caller | undefined, item: Item): Promise<ItemExtras> {
    if (!caller) return {};
    const mayShare = item.owner === caller.username || isAdminFor(caller, item.orgId, Privilege.AdminShare);
    return {
      targets: mayShare ? await this.targets.memberOf(caller) : undefined,
      exports: item.type === 'Feature Service' ? await this.exports.forItem(caller, item) : undefined,
    };
  }

  /** The export form shows where `export` would accept it: a hosted service, to its owner or an administrator. */
  private async exportChoices(caller: Caller | undefined, item: Item): Promise<ExportChoices | undefined> {
    if (!caller || item.type !== 'Feature Service') return undefined;
    if (item.owner !== caller.username && !isAdminFor(caller, item.orgId, Privilege.AdminViewItems)) return undefined;
    const layers = await this.services.layers(item.id);
    return {
      formats: Object.values(FORMAT_CATALOGUE).map((f) => f.name),
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

  private home(): string {
    return `${pagesBase(this.config)}/arcgis/rest/services?f=html`;
  }

  /** The sign-in form (generateToken?f=html), leading to `next` if it is one of our pages. */
  @Public()
  @Formats('html')
  @Get('signin')
  signInForm(@Req() req: ArcgisRequest) {
    const next = signInTarget(req.arcParams.next, publicRoot(req, this.config)) ?? this.home();
    return signInPage(pageContext(req, this.config), { next });
  }

  /**
   * The form posted: sign in, set the session cookie, and 303 to `next` as checked again here (the form's copy is
   * the visitor's to change). A refusal shows the form again with generateToken's message.
   */
  @Public()
  @Formats('html')
  @RawResponse()
  @Post('signin')
  async signIn(@Req() req: ArcgisRequest, @Res() res: Response) {
    const p = req.arcParams;
    const state: SignInState = { next: signInTarget(p.next, publicRoot(req, this.config)) ?? this.home(), username: p.username };
    try {
      await this.sessions.signIn(req, res, { username: p.username, password: p.password, expiration: p.expiration });
    } catch (e) {
      if (!(e instanceof ArcgisError)) throw e;
      const reply = signInPage(pageContext(req, this.config), { ...state, error: { message: e.message, details: e.details } });
      res.status(200).set(HTML_HEADERS).send(reply.html);
      return;
    }
    res.redirect(303, state.next);
  }

  /** Sign-out: the session's token is revoked on the server and the cookie cleared; then the home page. */
  @Public()
  @Formats('html')
  @RawResponse()
  @Post('signout')
  async signOut(@Req() req: ArcgisRequest, @Res() res: Response) {
    await this.sessions.signOut(req, res, req.arcParams.csrf);
    res.redirect(303, this.home());
  }
}

import { Controller, Get, Inject, NotFoundException, Param, Req, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import * as path from 'node:path';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { ArcgisError } from '../core/errors/arcgis-error';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { Formats, NotArcgis, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { JsonText } from '../core/http/json-text';
import { Params } from '../core/http/params.decorator';
import { QueryDto } from '../feature-server/feature-server.dto';
import { FeatureServerService } from '../feature-server/feature-server.service';
import { QueryService } from '../feature-server/query.service';
import { DirectoryRepository } from './directory.repository';
import { HtmlErrorsFilter } from './html-errors.filter';
import { HTML_ROUTES } from './html-route';
import { pageContext } from './page-context';
import { previewPage } from './preview-page';
import { formParams, queryPage, QueryResult } from './query-page';
import { layerPage, servicePage } from './service-pages';

/** Files the pages load, by the name they ask for: a fixed list, so no request names a path on disk. */
const ASSETS: Record<string, string> = {
  'directory.css': path.join(__dirname, 'assets', 'directory.css'),
  'preview.js': path.join(__dirname, 'assets', 'preview.js'),
  'session.js': path.join(__dirname, 'assets', 'session.js'),
  'export.js': path.join(__dirname, 'assets', 'export.js'),
  'content.js': path.join(__dirname, 'assets', 'content.js'),
  'exports.js': path.join(__dirname, 'assets', 'exports.js'),
  'item-sharing.js': path.join(__dirname, 'assets', 'item-sharing.js'),
  // The group, webhooks and users pages (group-pages.controller.ts).
  ...Object.fromEntries(['home.css', 'home.js', 'group.js', 'webhooks.js', 'users.js'].map((f) => [f, path.join(__dirname, 'assets', f)])),
  'ol/ol.js': require.resolve('ol/dist/ol.js'),
  'ol/ol.css': require.resolve('ol/ol.css'),
};

/** A query reply as an object, whether the query service built it or had PostgreSQL write its JSON text. */
function asResult(reply: unknown): QueryResult {
  if (typeof reply === 'string') return JSON.parse(reply) as QueryResult;
  if (reply instanceof JsonText) return JSON.parse(reply.text) as QueryResult;
  if (Buffer.isBuffer(reply)) return JSON.parse(reply.toString('utf8')) as QueryResult;
  return reply as QueryResult;
}

/**
 * The services directory's pages of a service, a layer and a layer's query (reached with `f=html` on their ArcGIS
 * URLs, see html-route.ts), and the map preview. Each page is drawn from what the JSON route answers the same caller,
 * through the same services, so a page shows nothing the caller could not read as JSON.
 */
@Controller()
@UseFilters(HtmlErrorsFilter)
export class DirectoryController {
  constructor(
    private readonly features: FeatureServerService,
    private readonly queries: QueryService,
    private readonly directory: DirectoryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Formats('html')
  @Operation(`${HTML_ROUTES}/:name/FeatureServer`)
  async service(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Req() req: ArcgisRequest) {
    return servicePage(pageContext(req, this.config), name, await this.features.serviceInfo(caller, name));
  }

  @Public()
  @Formats('html')
  @Operation(`${HTML_ROUTES}/:name/FeatureServer/:layerId`)
  async layer(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Req() req: ArcgisRequest,
  ) {
    return layerPage(pageContext(req, this.config), name, await this.features.layerInfo(caller, name, layerId));
  }

  /** The form alone until something is asked; then the form as submitted and the answer under it. */
  @Public()
  @Formats('html')
  @Operation(`${HTML_ROUTES}/:name/FeatureServer/:layerId/query`)
  async query(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Req() req: ArcgisRequest,
    @Params(QueryDto) p: QueryDto,
  ) {
    const layer = await this.features.layerInfo(caller, name, layerId);
    const form = formParams(req.arcParams);
    const asked = Object.keys(form).some((k) => k !== 'f');
    let result: QueryResult | ArcgisError | undefined;
    try {
      if (asked) result = asResult(await this.queries.query(caller, name, layerId, { ...p, f: 'json' }));
    } catch (e) {
      // What the query refuses is shown under the form as asked, so it can be corrected there.
      if (!(e instanceof ArcgisError)) throw e;
      result = e;
    }
    return queryPage(pageContext(req, this.config), name, layer, form, result);
  }

  @Public()
  @Formats('html')
  @Operation('arcgis/rest/services/:name/FeatureServer/:layerId/preview')
  async preview(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Req() req: ArcgisRequest,
  ) {
    const layer = await this.features.layerInfo(caller, name, layerId);
    const e = 'extent' in layer ? layer.extent : null;
    const extent = e ? await this.directory.mercatorExtent(e, layer.spatialReference.latestWkid) : null;
    return previewPage(pageContext(req, this.config), name, layer, extent);
  }

  /** The stylesheet and scripts: public, the same for everyone, kept by browsers for an hour. */
  @NotArcgis()
  @Get(['arcgis/rest/static/:file', 'arcgis/rest/static/ol/:file'])
  asset(@Req() req: ArcgisRequest, @Res() res: Response) {
    const name = req.path.slice(req.path.indexOf('/arcgis/rest/static/') + '/arcgis/rest/static/'.length);
    const file = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!file) throw new NotFoundException();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.sendFile(file);
  }
}

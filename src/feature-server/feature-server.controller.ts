import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { publicReply } from '../core/http/cache';
import { CurrentCaller, Formats, Operation, OptionalCaller, PageLink, Public } from '../core/http/decorators';
import { UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { EditsService } from './edits.service';
import {
  AddToDefinitionDto,
  CreateServiceDto,
  DeleteFromDefinitionDto,
  EditsDto,
  LayerAddToDefinitionDto,
  LayerDeleteFromDefinitionDto,
  QueryDto,
  QueryRelatedDto,
  ServiceNameDto,
  UpdateDefinitionDto,
} from './feature-server.dto';
import { LayerInfoDto, QueryDomainsDto } from './feature-server.dto';
import { FeatureServerService } from './feature-server.service';
import { QueryService } from './query.service';
import { RelatedRecordsService } from './related.service';
import { FeatureViewsService } from './views.service';

@Controller('sharing/rest/content/users/:owner')
export class CreateServiceController {
  constructor(
    private readonly features: FeatureServerService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('createService')
  create(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Req() req: ArcgisRequest,
    @Params(CreateServiceDto) p: CreateServiceDto,
  ) {
    return this.features.createService(caller, owner, p, publicRoot(req, this.config));
  }
}

/** The portal's check of a new service's name (getUniqueServiceName), answered by the module that owns the names. */
@Controller('sharing/rest/portals')
export class ServiceNameController {
  constructor(private readonly features: FeatureServerService) {}

  @Operation(':portalId/isServiceNameAvailable')
  isServiceNameAvailable(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(ServiceNameDto) p: ServiceNameDto) {
    return this.features.isServiceNameAvailable(caller, portalId, p.name);
  }
}

/**
 * Hosted services under {CONTEXT_PATH}/arcgis/rest: the client takes what precedes /rest/services as the server root, so
 * services at the host root would send it to `//rest/info`.
 *
 * `:layerId` has no pipe: it is checked once the service is known to be readable, so a caller who may not see the
 * service learns nothing about its layers, and "Layer does not exist." names the service as it is stored.
 */
@Controller('arcgis/rest/services/:name/FeatureServer')
export class FeatureServerController {
  constructor(
    private readonly features: FeatureServerService,
    private readonly queries: QueryService,
    private readonly edits: EditsService,
    private readonly related: RelatedRecordsService,
    private readonly views: FeatureViewsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @PageLink()
  @Operation('')
  service(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string) {
    return this.features.serviceInfo(caller, name);
  }

  /** A view's sources (getViewSources); declared before ':layerId' so 'sources' is not read as a layer id. */
  @Public()
  @Operation('sources')
  sources(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Req() req: ArcgisRequest) {
    return this.views.sources(caller, name, publicRoot(req, this.config));
  }

  /** Declared before ':layerId' so 'layers' is not read as a layer id. */
  @Public()
  @Operation('layers')
  layers(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Params(LayerInfoDto) p: LayerInfoDto) {
    return this.features.allLayerInfo(caller, name, p.returnDomainNames);
  }

  /** Declared before ':layerId', as 'layers' is. */
  @Public()
  @Operation('queryDomains')
  queryDomains(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Params(QueryDomainsDto) p: QueryDomainsDto) {
    return this.features.queryDomains(caller, name, p.layers);
  }

  /** Declared before ':layerId', as 'layers' is. */
  @Public()
  @Operation('relationships')
  relationships(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string) {
    return this.features.relationships(caller, name);
  }

  @Public()
  @PageLink()
  @Operation(':layerId')
  layer(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(LayerInfoDto) p: LayerInfoDto,
  ) {
    return this.features.layerInfo(caller, name, layerId, p.returnDomainNames);
  }

  @Public()
  @PageLink()
  @Formats('geojson', 'pbf')
  @Operation(':layerId/query')
  query(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(QueryDto) p: QueryDto,
    @Req() req: ArcgisRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.queries.query(caller, name, layerId, p, caller ? undefined : publicReply(req, res));
  }

  @Public()
  @Operation(':layerId/queryRelatedRecords')
  queryRelated(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(QueryRelatedDto) p: QueryRelatedDto,
  ) {
    return this.related.query(caller, name, layerId, p);
  }

  @Public()
  @Post(':layerId/addFeatures')
  add(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(EditsDto) p: EditsDto,
  ) {
    return this.edits.addFeatures(caller, name, layerId, p);
  }

  @Public()
  @Post(':layerId/updateFeatures')
  update(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(EditsDto) p: EditsDto,
  ) {
    return this.edits.updateFeatures(caller, name, layerId, p);
  }

  @Public()
  @Post(':layerId/deleteFeatures')
  delete(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(EditsDto) p: EditsDto,
  ) {
    return this.edits.deleteFeatures(caller, name, layerId, p);
  }

  @Public()
  @Post(':layerId/applyEdits')
  applyEdits(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(EditsDto) p: EditsDto,
  ) {
    return this.edits.applyEdits(caller, name, layerId, p);
  }
}

@Controller('arcgis/rest/admin/services/:name/FeatureServer')
export class FeatureAdminController {
  constructor(
    private readonly features: FeatureServerService,
    private readonly views: FeatureViewsService,
  ) {}

  @Public()
  @Post('addToDefinition')
  add(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Params(AddToDefinitionDto) p: AddToDefinitionDto) {
    return this.views.addToDefinition(caller, name, p);
  }

  @Public()
  @Post('deleteFromDefinition')
  remove(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Params(DeleteFromDefinitionDto) p: DeleteFromDefinitionDto,
  ) {
    return this.features.deleteFromDefinition(caller, name, p);
  }

  @Public()
  @Post('updateDefinition')
  update(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string, @Params(UpdateDefinitionDto) p: UpdateDefinitionDto) {
    return this.features.updateDefinition(caller, name, p);
  }

  @Public()
  @Post(':layerId/updateDefinition')
  updateLayer(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(UpdateDefinitionDto) p: UpdateDefinitionDto,
  ) {
    return this.features.changeLayer(caller, name, layerId, 'update', p);
  }

  @Public()
  @Post(':layerId/addToDefinition')
  addToLayer(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(LayerAddToDefinitionDto) p: LayerAddToDefinitionDto,
  ) {
    return this.features.changeLayer(caller, name, layerId, 'add', p);
  }

  @Public()
  @Post(':layerId/deleteFromDefinition')
  deleteFromLayer(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(LayerDeleteFromDefinitionDto) p: LayerDeleteFromDefinitionDto,
  ) {
    return this.features.changeLayer(caller, name, layerId, 'delete', p);
  }

  /** getServiceAdminInfo: the client asks with POST. */
  @Public()
  @Operation('')
  info(@OptionalCaller() caller: Caller | undefined, @Param('name') name: string) {
    return this.features.serviceAdminInfo(caller, name);
  }
}

/**
 * FeatureServer/<layer>/<oid> (getFeature), in a module of its own that AppModule loads after every other module
 * with routes under FeatureServer/<layer>/: at that depth `:featureId` would take their fixed names (the pages'
 * `preview`). A name that is no object id is an unknown operation, answered as the catch-all answers one.
 */
@Controller('arcgis/rest/services/:name/FeatureServer')
export class FeatureController {
  constructor(private readonly queries: QueryService) {}

  @Public()
  @Operation(':layerId/:featureId')
  feature(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('featureId') featureId: string,
    @Req() req: ArcgisRequest,
  ) {
    if (!/^\d{1,16}$/.test(featureId)) throw Errors.invalidUrl(req.path);
    return this.queries.feature(caller, name, layerId, featureId);
  }
}

/**
 * What the client reads, without a token, to find the token service for a server root outside the portal URL:
 * `owningSystemUrl` and `authInfo.tokenServicesUrl`, before it exchanges its portal token with `serverUrl`.
 */
@Controller()
export class ServerInfoController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private info(req: ArcgisRequest) {
    const root = publicRoot(req, this.config);
    return { owningSystemUrl: root, authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${root}/sharing/rest/generateToken` } };
  }

  @Public()
  @Operation('arcgis/rest/info')
  serverInfo(@Req() req: ArcgisRequest) {
    return { currentVersion: 11.1, fullVersion: '11.1.0', ...this.info(req) };
  }

  @Public()
  @Operation('sharing/rest/info')
  portalInfo(@Req() req: ArcgisRequest) {
    return this.info(req);
  }
}

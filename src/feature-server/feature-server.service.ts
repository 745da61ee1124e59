import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { checkTags } from '../core/http/tag-list';
import type { EntityManager } from 'typeorm';
import { attachmentLayerJson, attachmentQueryCapabilities, AttachmentsService } from '../attachments';
import { ContentRepository } from '../content/content.repository';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { boolParam, jsonParam, requiredJsonParam } from '../core/http/param-values';
import { newId } from '../core/ids';
import { IdentityService } from '../identity/identity.service';
import { FeatureGate } from './feature-gate';
import { FeatureDataRepository } from './feature-data.repository';
import {
  AddToDefinitionDto,
  CreateServiceDto,
  DeleteFromDefinitionDto,
  LayerAddToDefinitionDto,
  LayerDeleteFromDefinitionDto,
  UpdateDefinitionDto,
} from './feature-server.dto';
import { LayersRepository, LayerDefinitionError } from '../layers/layers.repository';
import { LayerRow, NewService, ServiceRow } from '../layers/types';
import { assertMayCreateService } from '../layers/service-access';
import { drawingInfo, envelope, mapUnits, templates } from './layer-json';
import { viewJson } from './view-definition';
import { fieldInfo, LayerDefinition, LayerField, normaliseWkid, parseLayerDefinition } from '../layers/layer-schema';
import { addToLayer, DefinitionChange, deleteFromLayer, deleteLayers, ServiceChange, updateLayer } from '../layers/definition-change';
import { checkRelationships, parseRelationships, serviceRelationships, workingRelationships } from '../layers/relationships';
import { checkDomainNames, domainsOf } from '../layers/field-domain';

const SERVICE_NAME = /^[A-Za-z0-9_]{1,100}$/;

/** The one rule for service names (createService, publish, isServiceNameAvailable); `label` names the parameter. */
function serviceName(raw: unknown, label: string): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!SERVICE_NAME.test(name)) throw Errors.badRequest('Invalid service name.', [`${label} must be 1-100 letters, digits or '_'.`]);
  return name;
}
const CAPABILITIES = ['Query', 'Create', 'Update', 'Delete', 'Editing', 'Extract', 'Sync', 'ChangeTracking'];
const DEFAULT_CAPABILITIES = 'Query,Create,Update,Delete,Editing,Extract';

/** The one reading of `capabilities` (createService, publish, updateDefinition): a comma list of known ones. */
function capabilities(raw: unknown): string {
  if (typeof raw !== 'string') throw Errors.badRequest('Invalid capabilities.', ["'capabilities' must be a comma-separated list."]);
  const caps = raw
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const unknown = caps.filter((c) => !CAPABILITIES.includes(c));
  if (unknown.length) throw Errors.badRequest('Invalid capabilities.', [`Unknown capabilities: ${unknown.join(', ')}.`]);
  return [...new Set(caps)].join(',');
}

/** The one reading of `maxRecordCount` (createService, publish, updateDefinition). */
function maxRecordCount(raw: unknown): number {
  const n = Number(raw);
  if (raw === null || raw === '' || typeof raw === 'boolean' || !Number.isInteger(n) || n < 1 || n > 50000)
    throw Errors.badRequest("'maxRecordCount' must be 1-50000.");
  return n;
}

/**
 * The one reading of `cacheMaxAge` (createService, updateDefinition): seconds a shared cache may serve the service's
 * anonymous query replies, ArcGIS Online's 0-3600 range widened to a day.
 */
function cacheMaxAge(raw: unknown): number {
  const n = Number(raw);
  if (raw === null || raw === '' || typeof raw === 'boolean' || !Number.isInteger(n) || n < 0 || n > 86400)
    throw Errors.badRequest('Invalid definition.', ["'cacheMaxAge' must be 0-86400 seconds."]);
  return n;
}

const description = (v: unknown) => {
  if (typeof v !== 'string' || v.length > 64000)
    throw Errors.badRequest('Invalid definition.', ["'serviceDescription' must be text of at most 64000 characters."]);
  return v;
};

/** The keys a service's updateDefinition takes. */
const SERVICE_UPDATES: Record<string, (c: ServiceChange, v: unknown) => void> = {
  capabilities: (c, v) => {
    c.capabilities = capabilities(v);
  },
  maxRecordCount: (c, v) => {
    c.maxRecordCount = maxRecordCount(v);
  },
  serviceDescription: (c, v) => {
    c.description = description(v);
  },
  description: (c, v) => {
    c.description = description(v);
  },
  cacheMaxAge: (c, v) => {
    c.cacheMaxAge = cacheMaxAge(v);
  },
  // Where ArcGIS's admin JSON shows it; a definition read back and sent again carries the rest of adminServiceInfo.
  adminServiceInfo: (c, v) => {
    const info = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    if (!info) throw Errors.badRequest('Invalid definition.', ["'adminServiceInfo' must be a JSON object."]);
    if (info.cacheMaxAge !== undefined) c.cacheMaxAge = cacheMaxAge(info.cacheMaxAge);
  },
};

/** A layer's definition operations, each worked out from the layers as they are (definition-change.ts). */
const LAYER_CHANGES = { update: updateLayer, add: addToLayer, delete: deleteFromLayer } as const;

/**
 * Layers for a service yet to be made, numbered as LayersRepository.addLayers will number them, refused now rather
 * than once the service exists: an id given twice, relationships that do not hold.
 */
function checkNewLayers(entries: { id?: number; def: LayerDefinition }[]): void {
  const used = new Set<number>();
  let next = 0;
  const rows = entries.map(({ id, def }) => {
    const layerId = id ?? next;
    if (used.has(layerId)) throw Errors.badRequest('Invalid layer definition.', [`Layer id ${layerId} is given twice.`]);
    used.add(layerId);
    next = Math.max(next, layerId + 1);
    return { layer_id: layerId, name: def.name, fields: def.fields, relationships: def.relationships };
  });
  checkRelationships(rows);
}

/** A layer id as the URL names it, or undefined when it cannot name a layer. */
/** applyEdits with useGlobalIds finds, keeps and deletes a layer's features by this field. */
const hasGlobalId = (l: LayerRow) => l.fields.some((f) => f.type === 'esriFieldTypeGlobalID');
const layerNumber = (layerId: string) => (/^\d{1,9}$/.test(layerId) ? Number(layerId) : undefined);

export interface ResolvedLayer {
  service: ServiceRow;
  layer: LayerRow;
}

/** Services, layers and who may reach them: a service follows its item's sharing. */
@Injectable()
export class FeatureServerService {
  private readonly unitsBySrid = new Map<number, string>();

  constructor(
    private readonly repo: LayersRepository,
    private readonly data: FeatureDataRepository,
    private readonly content: ContentRepository,
    private readonly identity: IdentityService,
    private readonly gate: FeatureGate,
    private readonly attachments: AttachmentsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  serviceUrl(root: string, name: string): string {
    return `${root}/arcgis/rest/services/${name}/FeatureServer`;
  }

  async createService(caller: Caller, ownerName: string, p: CreateServiceDto, root: string) {
    const cp = requiredJsonParam<Record<string, unknown>>('createParameters', p.createParameters);
    const itemInfo = jsonParam<Record<string, unknown>>('itemInfo', p.itemInfo) ?? {};
    const isView = boolParam('isView', p.isView, cp.isView === true);
    const s = { ...(await this.newService(caller, ownerName, cp, itemInfo, p.tags, root, 'completed')), isView };
    // Layers and tables given with the service are checked before it is made, and added as addToDefinition adds them;
    // a view's come from addToDefinition, which names their sources.
    const entries = await this.layerEntries(cp, normaliseWkid(s.spatialReference.latestWkid ?? s.spatialReference.wkid));
    if (isView && entries.length)
      throw Errors.badRequest('Invalid definition.', ["A view's layers are added with addToDefinition, naming their sources."]);
    checkNewLayers(entries);
    checkDomainNames(entries.map((e) => e.def));
    await this.insertService(s);
    if (entries.length) await this.addEntries((await this.repo.findServiceByItem(s.itemId))!, entries);
    return {
      encodedServiceURL: encodeURI(s.url),
      itemId: s.itemId,
      name: s.name,
      serviceItemId: s.itemId,
      serviceurl: s.url,
      size: -1,
      success: true,
      type: 'Feature Service',
      isView,
    };
  }

  /**
   * `portals/self/isServiceNameAvailable`: whether createService would take the name now (the same rule, and no
   * service of that name in any case). Service URLs are the portal's, so a name is taken whoever's service has it.
   */
  async isServiceNameAvailable(caller: Caller, portalId: string, name: string): Promise<{ available: boolean }> {
    await this.identity.orgOfPortal(caller, portalId);
    return { available: !(await this.repo.nameTaken(serviceName(name, "'name'"))) };
  }

  async insertService(s: NewService, tx?: EntityManager): Promise<void> {
    if (!(await this.repo.createService(s, tx)))
      throw Errors.badRequest('Service name already exists.', [`A service named '${s.name}' already exists.`]);
  }

  /** Validates service parameters (createService's createParameters, publish's publishParameters) into a new service. */
  async newService(
    caller: Caller,
    ownerName: string,
    cp: Record<string, unknown>,
    itemInfo: Record<string, unknown>,
    tags: string[] | undefined,
    root: string,
    status: 'processing' | 'completed',
  ): Promise<NewService> {
    const owner = await this.identity.requireUser(ownerName);
    assertMayCreateService(caller, owner.id);
    const name = serviceName(cp.name, "'name' in createParameters");
    const caps = typeof cp.capabilities === 'string' ? capabilities(cp.capabilities) : DEFAULT_CAPABILITIES;
    const maxRecords = cp.maxRecordCount === undefined ? 2000 : maxRecordCount(cp.maxRecordCount);
    const sr = (cp.spatialReference ?? { wkid: 4326 }) as { wkid?: unknown; latestWkid?: unknown };
    const wkid = Number(sr.latestWkid ?? sr.wkid);
    if (!Number.isInteger(wkid) || !(await this.repo.sridExists(normaliseWkid(wkid))))
      throw Errors.badRequest('Invalid spatial reference.', [`Unknown wkid ${String(sr.latestWkid ?? sr.wkid)}.`]);
    if (await this.repo.nameTaken(name))
      throw Errors.badRequest('Service name already exists.', [`A service named '${name}' already exists.`]);
    const tagList = tags ?? (Array.isArray(itemInfo.tags) ? itemInfo.tags.filter((t): t is string => typeof t === 'string') : []);
    checkTags('tags', tagList, this.config.limits);
    const itemId = newId();
    const url = this.serviceUrl(root, name);
    return {
      itemId,
      ownerId: owner.id,
      orgId: owner.orgId,
      name,
      title: typeof itemInfo.title === 'string' && itemInfo.title.trim() ? itemInfo.title.trim().slice(0, 256) : name,
      url,
      description: typeof cp.serviceDescription === 'string' ? cp.serviceDescription.slice(0, 64000) : '',
      tags: tagList,
      capabilities: caps,
      maxRecordCount: maxRecords,
      ...(cp.cacheMaxAge !== undefined ? { cacheMaxAge: cacheMaxAge(cp.cacheMaxAge) } : {}),
      spatialReference: { wkid, ...(wkid !== normaliseWkid(wkid) ? { latestWkid: normaliseWkid(wkid) } : {}) },
      status,
    };
  }

  /** A service the caller may read: 499 for anonymous callers (so the client signs in), else a 400 that reveals nothing. */
  async readable(caller: Caller | undefined, name: string): Promise<ServiceRow> {
    const service = await this.repo.findService(name);
    if (service && (await this.content.findVisibleItem(service.item_id, caller))) return service;
    throw this.inaccessible(caller, name);
  }

  private inaccessible(caller: Caller | undefined, name: string) {
    if (!caller) return Errors.tokenRequired();
    return Errors.badRequest('Service does not exist or is inaccessible.', [`No service '${name}' for this user.`]);
  }

  /**
   * readable() with the layer `layerId` read in the same round trip (a query's lookups), and the stamp of both rows
   * (known-layers.ts); the layer is null when the service has none of that id, which the caller reports with
   * layerMissing once it has checked the service. `withVersion` adds the layer's data version and a view layer's clause (findServiceLayer).
   */
  async readableWithLayer(
    caller: Caller | undefined,
    name: string,
    layerId: string,
    withVersion = false,
  ): Promise<{ service: ServiceRow; layer: LayerRow | null; stamp: string | null; version?: string | null; viewWhere?: string | null }> {
    const found = await this.repo.findServiceLayer(name, caller, layerNumber(layerId), withVersion);
    if (!found?.visible) throw this.inaccessible(caller, name);
    return { service: found.service, layer: found.layer, stamp: found.stamp, version: found.version, viewWhere: found.viewWhere };
  }

  /** Definition changes and edits: the owner, or an administrator of the owner's organisation. */
  async writable(caller: Caller | undefined, name: string): Promise<ServiceRow> {
    if (!caller) throw Errors.tokenRequired();
    const service = await this.readable(caller, name);
    if (caller?.userId === service.owner_id || isAdminFor(caller, service.org_id, Privilege.AdminUpdateItems)) return service;
    throw Errors.forbidden('Only the owner or an administrator may change this service.');
  }

  sridExists(srid: number): Promise<boolean> {
    return this.repo.sridExists(srid);
  }

  /** The service's layers and tables, in id order. */
  layersOf(service: ServiceRow): Promise<LayerRow[]> {
    return this.repo.layers(service.item_id);
  }

  async resolveLayer(service: ServiceRow, layerId: string): Promise<LayerRow> {
    const id = layerNumber(layerId);
    const layer = id === undefined ? null : await this.repo.layer(service.item_id, id);
    if (!layer) throw this.layerMissing(service, layerId);
    return layer;
  }

  /** The layer as its attachments are kept: a view layer's are its source's (LayersRepository.attachmentsLayer). */
  attachmentsLayer(service: ServiceRow, layer: LayerRow): Promise<LayerRow> {
    return this.repo.attachmentsLayer(service, layer);
  }

  layerMissing(service: ServiceRow, layerId: string) {
    return Errors.badRequest('Layer does not exist.', [`Service '${service.name}' has no layer '${layerId.slice(0, 32)}'.`]);
  }

  async addToDefinition(caller: Caller | undefined, name: string, p: AddToDefinitionDto) {
    const service = await this.writable(caller, name);
    const def = requiredJsonParam<{ layers?: unknown; tables?: unknown }>('addToDefinition', p.addToDefinition);
    const entries = await this.layerEntries(def, normaliseWkid(service.spatial_reference.latestWkid ?? service.spatial_reference.wkid));
    if (!entries.length)
      throw Errors.badRequest('Invalid layer definition.', ["'addToDefinition' needs at least one entry in 'layers' or 'tables'."]);
    checkDomainNames([...(await this.repo.layers(service.item_id)), ...entries.map((e) => e.def)]);
    return { success: true, layers: await this.addEntries(service, entries) };
  }

  /** The `layers` and `tables` of a definition (addToDefinition, or createService's createParameters), checked. */
  private async layerEntries(def: { layers?: unknown; tables?: unknown }, defaultSrid: number) {
    const list = (key: 'layers' | 'tables') => {
      const v = def[key];
      if (v === undefined) return [];
      if (!Array.isArray(v)) throw Errors.badRequest(`'${key}' must be an array.`);
      return v;
    };
    const entries: { id?: number; def: LayerDefinition }[] = [
      ...list('layers').map((l) => ({ raw: l, kind: 'Feature Layer' as const })),
      ...list('tables').map((l) => ({ raw: l, kind: 'Table' as const })),
    ].map(({ raw, kind }) => {
      const id = (raw as { id?: unknown })?.id;
      if (id !== undefined && (!Number.isInteger(id) || (id as number) < 0 || (id as number) > 1e6))
        throw Errors.badRequest('Invalid layer definition.', [`Layer id ${JSON.stringify(id)} must be a whole number 0-1000000.`]);
      const parsed = parseLayerDefinition(raw, kind, defaultSrid);
      parsed.relationships = parseRelationships((raw as { relationships?: unknown }).relationships, parsed.name, parsed.fields);
      return { id: id as number | undefined, def: parsed };
    });
    for (const e of entries) {
      if (!(await this.repo.sridExists(e.def.srid)))
        throw Errors.badRequest('Invalid layer definition.', [`Layer '${e.def.name}': unknown wkid ${e.def.srid}.`]);
    }
    return entries;
  }

  private async addEntries(service: ServiceRow, entries: { id?: number; def: LayerDefinition }[]) {
    try {
      return await this.repo.addLayers(service, entries);
    } catch (e) {
      if (e instanceof LayerDefinitionError) throw Errors.badRequest('Invalid layer definition.', [e.message]);
      throw e;
    }
  }

  async deleteFromDefinition(caller: Caller | undefined, name: string, p: DeleteFromDefinitionDto) {
    const service = await this.writable(caller, name);
    const def = requiredJsonParam<{ layers?: unknown; tables?: unknown }>('deleteFromDefinition', p.deleteFromDefinition);
    const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : null);
    const layers = list(def.layers);
    const tables = list(def.tables);
    if (!layers || !tables) throw Errors.badRequest('Invalid definition.', ["'layers' and 'tables' must be arrays of {\"id\": n}."]);
    const ids = [...layers, ...tables].map((l) => (l as { id?: unknown })?.id);
    if (!ids.length || ids.some((id) => !Number.isInteger(id)))
      throw Errors.badRequest('Invalid definition.', ['Give the layers to delete as {"layers":[{"id":0}]}.']);
    // As ArcGIS keeps a hosted layer while views of it exist, a layer a view reads stays until the view goes.
    const readByViews = (views: string[]) =>
      Errors.badRequest('Unable to update feature service layer definition.', [`Views read these layers: ${views.join(', ')}.`]);
    const views = await this.repo.viewsOf(service.item_id, ids as number[]);
    if (views.length) throw readByViews(views);
    const files = await this.attachments.keysOfLayers(service.item_id, ids as number[]);
    await this.redefine(service, (current) => ({ change: deleteLayers(current, ids as number[]), result: undefined })).catch(
      async (e: unknown) => {
        // A view made since the check: its foreign key keeps the layer.
        if ((e as { code?: string }).code === '23503') throw readByViews(await this.repo.viewsOf(service.item_id, ids as number[]));
        throw e;
      },
    );
    await this.attachments.removeFiles(files);
    return { success: true };
  }

  /** The service's updateDefinition: capabilities, maxRecordCount, cacheMaxAge, its description. */
  async updateDefinition(caller: Caller | undefined, name: string, p: UpdateDefinitionDto) {
    const service = await this.writable(caller, name);
    const def = requiredJsonParam<Record<string, unknown>>('updateDefinition', p.updateDefinition);
    const change: ServiceChange = {};
    for (const [key, value] of Object.entries(def)) {
      const apply = Object.hasOwn(SERVICE_UPDATES, key) ? SERVICE_UPDATES[key] : undefined;
      if (!apply)
        throw Errors.badRequest('Invalid definition.', [
          `Unsupported service definition property '${key}'; supported: ${Object.keys(SERVICE_UPDATES).join(', ')}.`,
        ]);
      apply(change, value);
    }
    await this.redefine(service, () => ({ change: { service: change }, result: undefined }));
    return { success: true };
  }

  /** updateDefinition, addToDefinition and deleteFromDefinition on one layer or table. */
  async changeLayer(
    caller: Caller | undefined,
    name: string,
    layerId: string,
    op: keyof typeof LAYER_CHANGES,
    p: UpdateDefinitionDto | LayerAddToDefinitionDto | LayerDeleteFromDefinitionDto,
  ) {
    const service = await this.writable(caller, name);
    // A view layer is a relation over its source's table: its fields follow the view's definition, not these changes.
    if (service.is_view)
      throw Errors.badRequest('Unable to update feature service layer definition.', [
        "A view layer's fields come from its source; delete the view layer and add it again with the definition wanted.",
      ]);
    const param = op === 'update' ? 'updateDefinition' : op === 'add' ? 'addToDefinition' : 'deleteFromDefinition';
    const def = requiredJsonParam<Record<string, unknown>>(param, (p as unknown as Record<string, string>)[param]);
    const id = layerNumber(layerId);
    const plan = (layers: LayerRow[]): { change: DefinitionChange; result: undefined } => {
      const layer = layers.find((l) => l.layer_id === id);
      if (!layer) throw this.layerMissing(service, layerId);
      const change = LAYER_CHANGES[op](layers, layer, def);
      // One domain name, one definition, across the service as it will be.
      checkDomainNames(layers.map((l) => change.layers?.find((c) => c.layer.layer_id === l.layer_id)?.layer ?? l));
      return { change, result: undefined };
    };
    await this.redefine(service, plan);
    return { success: true };
  }

  /** LayersRepository.redefine, with what PostgreSQL refuses on the way as the envelope says it. */
  private async redefine(service: ServiceRow, plan: (layers: LayerRow[]) => { change: DefinitionChange; result: undefined }) {
    try {
      await this.repo.redefine(service, plan);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      // 23502: a field added as not nullable to a layer whose features have no value for it.
      if (code === '23502')
        throw Errors.badRequest('Invalid definition.', [
          'A field that takes no nulls cannot be added to a layer with features; add it as nullable.',
        ]);
      // 2BP01, 0A000: dropping or retyping a column a view of this layer reads; ArcGIS keeps what its views use.
      if (code === '2BP01' || code === '0A000')
        throw Errors.badRequest('Unable to update feature service layer definition.', [
          `Views read this field: ${(await this.repo.viewsOf(service.item_id)).join(', ')}. Delete their layers first.`,
        ]);
      // 55P03: lock_timeout, the table being read all along (an export, a long query).
      if (code === '55P03')
        throw new ArcgisError(503, 'Unable to complete operation.', [
          'The layer is being read (an export or a long query); try again shortly.',
        ]);
      throw e;
    }
  }

  /**
   * `admin/services/<name>/FeatureServer` (getServiceAdminInfo): the service's JSON with every layer and table in
   * full, and ArcGIS's adminServiceInfo; for those who may change the service.
   */
  async serviceAdminInfo(caller: Caller | undefined, name: string) {
    const service = await this.writable(caller, name);
    const layers = await this.repo.layers(service.item_id);
    const info = await this.serviceJson(caller, service, layers);
    const full = await this.describeAll(caller, service, layers);
    return {
      adminServiceInfo: {
        name: service.name,
        type: 'FeatureServer',
        status: 'Started',
        cacheMaxAge: service.cache_max_age ?? this.config.query.cacheMaxAgeS,
        database: { datasource: { name: service.schema_name } },
      },
      ...info,
      layers: full.filter((l) => l.type === 'Feature Layer'),
      tables: full.filter((l) => l.type === 'Table'),
    };
  }

  /** FeatureServer/relationships: the service's working relationships, one entry per pair. */
  async relationships(caller: Caller | undefined, name: string) {
    const service = await this.readable(caller, name);
    return { relationships: serviceRelationships(await this.repo.layers(service.item_id)) };
  }

  /** The service root: its layers and tables, and their extents together in the service's spatial reference. */
  async serviceInfo(caller: Caller | undefined, name: string) {
    const service = await this.readable(caller, name);
    return this.serviceJson(caller, service, await this.repo.layers(service.item_id));
  }

  private async serviceJson(caller: Caller | undefined, service: ServiceRow, layers: LayerRow[]) {
    const sr = service.spatial_reference;
    const srid = normaliseWkid(sr.latestWkid ?? sr.wkid);
    const [box, units] = await Promise.all([
      this.gate.run(caller, () => this.data.extentIn(service.schema_name, layers, srid)),
      this.units(srid),
    ]);
    const extent = envelope(box, sr);
    const brief = (l: LayerRow) => ({
      id: l.layer_id,
      name: l.name,
      type: l.kind,
      parentLayerId: -1,
      defaultVisibility: true,
      subLayerIds: null,
      minScale: 0,
      maxScale: 0,
      ...(l.geometry_type ? { geometryType: l.geometry_type } : {}),
    });
    return {
      currentVersion: 11.1,
      serviceItemId: service.item_id,
      serviceDescription: service.description,
      hasVersionedData: false,
      supportsDisconnectedEditing: false,
      hasStaticData: false,
      hasSharedDomains: false,
      supportsQueryDomains: true,
      maxRecordCount: service.max_record_count,
      supportedQueryFormats: 'JSON, geoJSON, PBF',
      supportsVCSProjection: false,
      capabilities: service.capabilities,
      description: service.description,
      copyrightText: '',
      spatialReference: sr,
      initialExtent: extent,
      fullExtent: extent,
      allowGeometryUpdates: true,
      units,
      syncEnabled: false,
      // applyEdits with useGlobalIds names features by their GlobalID: every layer and table needs one.
      supportsApplyEditsWithGlobalIds: layers.length > 0 && layers.every(hasGlobalId),
      documentInfo: { Title: service.title, Author: service.owner, Comments: '', Subject: '', Category: '', Keywords: '' },
      enableZDefaults: false,
      layers: layers.filter((l) => l.kind === 'Feature Layer').map(brief),
      tables: layers.filter((l) => l.kind === 'Table').map(brief),
      relationships: serviceRelationships(layers),
      supportsRelationshipsResource: true,
      ...viewJson(service),
    };
  }

  /** Map units of a spatial reference; definitions do not change while the server runs, so each is read once. */
  private async units(srid: number): Promise<string> {
    let units = this.unitsBySrid.get(srid);
    if (!units) {
      const srs = await this.repo.srsText(srid);
      units = mapUnits(srs?.proj4text, srs?.srtext);
      this.unitsBySrid.set(srid, units);
    }
    return units;
  }

  /**
   * FeatureServer/layers: full info of every layer and table. The extents are scanned one after another on a single
   * connection's worth of budget: in parallel, one request for a service of many large layers took the whole pool.
   */
  async allLayerInfo(caller: Caller | undefined, name: string, returnDomainNames?: string) {
    const names = boolParam('returnDomainNames', returnDomainNames, false);
    const service = await this.readable(caller, name);
    const infos = await this.describeAll(caller, service, await this.repo.layers(service.item_id), names);
    return { layers: infos.filter((l) => l.type === 'Feature Layer'), tables: infos.filter((l) => l.type === 'Table') };
  }

  private describeAll(caller: Caller | undefined, service: ServiceRow, layers: LayerRow[], names = false) {
    return this.gate.run(caller, async () => {
      const out = [];
      for (const l of layers) out.push(await this.describeLayer(service, l, layers, names));
      return out;
    });
  }

  async layerInfo(caller: Caller | undefined, name: string, layerId: string, returnDomainNames?: string) {
    const names = boolParam('returnDomainNames', returnDomainNames, false);
    const service = await this.readable(caller, name);
    const layer = await this.resolveLayer(service, layerId);
    // The other layers are read only to tell which of this one's relationships work.
    const layers = layer.relationships?.length ? await this.repo.layers(service.item_id) : [layer];
    return this.gate.run(caller, () => this.describeLayer(service, layer, layers, names));
  }

  /**
   * FeatureServer/queryDomains: the full definition of every domain the layers' fields use, once per name (the
   * layer JSON's `returnDomainNames=true` gives the names only). No `layers`: every layer and table.
   */
  async queryDomains(caller: Caller | undefined, name: string, layersParam?: string) {
    const ids = jsonParam<unknown>('layers', layersParam, 'any');
    if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))))
      throw Errors.badRequest("'layers' must be an array of layer ids, e.g. [0,1].");
    const service = await this.readable(caller, name);
    const all = await this.repo.layers(service.item_id);
    const wanted = ids === undefined ? all : (ids as number[]).map((id) => all.find((l) => l.layer_id === id) ?? id);
    const missing = wanted.find((l) => typeof l === 'number');
    if (missing !== undefined) throw this.layerMissing(service, String(missing));
    return { domains: domainsOf(wanted as LayerRow[]) };
  }

  /** A field as the layer JSON shows it; with returnDomainNames=true its domain is named, not spelled out. */
  private fieldJson(f: LayerField, domainNames: boolean) {
    const info = fieldInfo(f);
    return domainNames && f.domain ? { ...info, domain: { type: f.domain.type, name: f.domain.name } } : info;
  }

  /**
   * A layer or table as ArcGIS Online describes a hosted one, with what this server has: relationships whose both
   * sides are declared; no attachments, subtypes, editor tracking, ownership-based access or sync. There is one record limit, so the standard and tile
   * limits are it too.
   */
  private async describeLayer(service: ServiceRow, layer: LayerRow, layers: LayerRow[], domainNames = false) {
    const sr = { wkid: layer.srid, latestWkid: layer.srid };
    const extent = envelope(await this.data.extent(service.schema_name, layer), sr);
    return {
      currentVersion: 11.1,
      id: layer.layer_id,
      name: layer.name,
      type: layer.kind,
      serviceItemId: service.item_id,
      displayField: layer.display_field ?? layer.fields.find((f) => f.type === 'esriFieldTypeString')?.name ?? layer.object_id_field,
      description: layer.description ?? '',
      copyrightText: '',
      defaultVisibility: true,
      editFieldsInfo: null,
      ownershipBasedAccessControlForFeatures: null,
      syncCanReturnChanges: false,
      relationships: workingRelationships(layers, layer),
      isDataVersioned: false,
      ...(layer.geometry_type
        ? {
            geometryType: layer.geometry_type,
            minScale: 0,
            maxScale: 0,
            extent,
            sourceSpatialReference: sr,
            drawingInfo: drawingInfo(layer.geometry_type),
          }
        : {}),
      spatialReference: sr,
      hasZ: false,
      hasM: false,
      ...attachmentLayerJson(layer),
      htmlPopupType: 'esriServerHTMLPopupTypeNone',
      objectIdField: layer.object_id_field,
      globalIdField: layer.fields.find((f) => f.type === 'esriFieldTypeGlobalID')?.name ?? '',
      typeIdField: '',
      uniqueIdField: { name: layer.object_id_field, isSystemMaintained: true },
      ...(layer.geometry_type ? { geometryField: { name: 'Shape', type: 'esriFieldTypeGeometry', alias: 'Shape' } } : {}),
      fields: layer.fields.map((f) => this.fieldJson(f, domainNames)),
      types: [],
      templates: templates(layer.name, layer.geometry_type, layer.fields, service.capabilities),
      maxRecordCount: service.max_record_count,
      standardMaxRecordCount: service.max_record_count,
      tileMaxRecordCount: service.max_record_count,
      maxRecordCountFactor: 1,
      supportedQueryFormats: 'JSON, geoJSON, PBF',
      hasStaticData: false,
      capabilities: service.capabilities,
      syncEnabled: false,
      useStandardizedQueries: true,
      supportsAdvancedQueries: true,
      supportsStatistics: true,
      advancedQueryCapabilities: {
        supportsPagination: true,
        supportsOrderBy: true,
        supportsQueryWithResultType: false,
        supportsReturningQueryExtent: true,
        supportsStatistics: true,
        supportsDistinct: true,
        supportsCountDistinct: true,
        supportsPaginationOnAggregatedQueries: true,
        // Statistics are ordered by their output names too; HAVING and SQL expressions are refused.
        supportsOrderByOnlyOnLayerFields: false,
        supportsHavingClause: false,
        supportsSqlExpression: false,
        // returnCentroid is answered for polygons (f=json and f=pbf) and refused for other layers.
        supportsReturningGeometryCentroid: layer.geometry_type === 'esriGeometryPolygon',
        // queryRelatedRecords pages (resultOffset, resultRecordCount) and takes orderByFields and returnCountOnly.
        supportsQueryRelatedPagination: true,
        supportsAdvancedQueryRelated: true,
        ...attachmentQueryCapabilities(layer),
      },
      // quantizationParameters (view mode) in f=json as in f=pbf: the SDK then leaves quantizing to the server.
      supportsCoordinatesQuantization: !!layer.geometry_type,
      supportsPagination: true,
      allowGeometryUpdates: true,
      supportsRollbackOnFailureParameter: true,
      supportsApplyEditsWithGlobalIds: hasGlobalId(layer),
      ...viewJson(service),
    };
  }
}

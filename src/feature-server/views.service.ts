import { Injectable } from '@nestjs/common';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { requiredJsonParam } from '../core/http/param-values';
import { LayerDefinitionError, LayersRepository } from '../layers/layers.repository';
import { LayerRow, ServiceRow } from '../layers/types';
import { AddToDefinitionDto } from './feature-server.dto';
import { FeatureServerService } from './feature-server.service';
import { keepRelationships, parseViewLayer, viewSourceRef } from './view-definition';

/**
 * Hosted feature layer views: a view service (createService with isView=true) gets its layers from addToDefinition
 * naming their sources, and answers `sources`. The view is an item of its own: its sharing, not its sources', says
 * who reads it, and its layers show only the rows and fields their definition lets through (layers/view-schema.ts).
 */
@Injectable()
export class FeatureViewsService {
  constructor(
    private readonly repo: LayersRepository,
    private readonly features: FeatureServerService,
  ) {}

  /** addToDefinition: a view's layers come from their sources; other services' are defined by FeatureServerService. */
  async addToDefinition(caller: Caller | undefined, name: string, p: AddToDefinitionDto) {
    const view = await this.features.writable(caller, name);
    if (!view.is_view) return this.features.addToDefinition(caller, name, p);
    const def = requiredJsonParam<{ layers?: unknown; tables?: unknown }>('addToDefinition', p.addToDefinition);
    return this.addLayers(caller!, view, def);
  }

  private async addLayers(caller: Caller, view: ServiceRow, def: { layers?: unknown; tables?: unknown }) {
    const list = (key: 'layers' | 'tables') => {
      const v = def[key];
      if (v === undefined) return [];
      if (!Array.isArray(v)) throw Errors.badRequest(`'${key}' must be an array.`);
      return v;
    };
    const refs = [...list('layers'), ...list('tables')].map(viewSourceRef);
    if (!refs.length)
      throw Errors.badRequest('Invalid layer definition.', ["'addToDefinition' needs at least one entry in 'layers' or 'tables'."]);
    const entries = [];
    const sourceLayers: LayerRow[] = [];
    for (const ref of refs) {
      const source = await this.repo.findService(ref.sourceServiceName);
      // As in ArcGIS: only the source's owner or an administrator makes views of it, and a view is not a source.
      const mayUse = source && (source.owner_id === caller.userId || isAdminFor(caller, source.org_id, Privilege.AdminUpdateItems));
      if (!source || !mayUse || source.is_view || source.item_id === view.item_id)
        throw Errors.badRequest('Invalid layer definition.', [
          `Source service '${ref.sourceServiceName.slice(0, 100)}' does not exist or cannot be the source of this view.`,
        ]);
      const layer = await this.repo.layer(source.item_id, ref.sourceLayerId);
      if (!layer) throw Errors.badRequest('Invalid layer definition.', [`Service '${source.name}' has no layer ${ref.sourceLayerId}.`]);
      const parsed = parseViewLayer(ref, layer);
      sourceLayers.push(layer);
      const wkid = parsed.view.filter?.value.geometry.spatialReference.wkid;
      if (wkid !== undefined && !(await this.repo.sridExists(wkid)))
        throw Errors.badRequest('Invalid layer definition.', [`Layer '${parsed.def.name}': unknown wkid ${wkid} in the filter.`]);
      entries.push({
        id: ref.id,
        def: parsed.def,
        view: {
          source: { itemId: source.item_id, layerId: layer.layer_id },
          definition: parsed.view,
          relation: {
            sourceSchema: source.schema_name,
            sourceTable: layer.table_name,
            fields: parsed.def.fields,
            hasGeometry: !!layer.geometry_type,
            whereSql: parsed.whereSql,
            filter: parsed.view.filter,
            srid: layer.srid,
          },
        },
      });
    }
    keepRelationships(entries, sourceLayers, await this.features.layersOf(view));
    try {
      return { success: true, layers: await this.repo.addLayers(view, entries) };
    } catch (e) {
      if (e instanceof LayerDefinitionError) throw Errors.badRequest('Invalid layer definition.', [e.message]);
      throw e;
    }
  }

  /**
   * FeatureServer/sources: the services a view reads (none for a service that is not a view). Only the view's owner
   * or an administrator is told: its readers may not know the sources, which can be private.
   */
  async sources(caller: Caller | undefined, name: string, root: string) {
    const service = await this.features.readable(caller, name);
    if (caller?.userId !== service.owner_id && !isAdminFor(caller, service.org_id, Privilege.AdminViewItems))
      throw Errors.forbidden('Only the owner of the view or an administrator may list its sources.');
    const sources = service.is_view ? await this.repo.viewSources(service.item_id) : [];
    return {
      currentVersion: 11.1,
      services: sources.map((s) => ({
        name: s.name,
        type: 'FeatureServer',
        url: this.features.serviceUrl(root, s.name),
        serviceItemId: s.item_id,
      })),
    };
  }
}

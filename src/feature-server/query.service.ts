import { Inject, Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { NotModified, PublicReply } from '../core/http/cache';
import { SqlParams } from '../core/database/sql-params';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { JsonText } from '../core/http/json-text';
import { FeatureGate } from './feature-gate';
import { FeatureDataRepository } from './feature-data.repository';
import { QuerySpec } from './query/query-spec';
import { QueryDto } from './feature-server.dto';
import { FeatureServerService } from './feature-server.service';
import { KnownLayer, knownLayerGuard, KnownLayers } from '../layers/known-layers';
import { LayerRow, ServiceRow } from '../layers/types';
import { fieldInfo, LayerField } from '../layers/layer-schema';
import { PbfQueryService } from './pbf/pbf-query.service';
import { esriTransform } from './pbf/quantization';
import { boolParam, envelopeParam, idList, intParam, invalidQuery, srRequest } from './query-params';
import { aggregateRequest, isAggregated } from './query/statistics';
import { aggregateReply } from './query/statistics-reply';
import { geometryOutput } from './query/geometry-params';
import { compileWhere, whereReadsClock } from '../where/compile';
import { replyEtag } from './reply-validator';

/** Fields resolved case-insensitively, as ArcGIS does; `*` means all. */
function resolveFields(layer: LayerRow, list: string | undefined): LayerField[] {
  if (list === undefined || list.trim() === '' || list.trim() === '*') return layer.fields;
  const byName = new Map(layer.fields.map((f) => [f.column, f]));
  const out: LayerField[] = [];
  for (const raw of list.split(',')) {
    const name = raw.trim();
    if (name === '*') return layer.fields;
    const f = byName.get(name.toLowerCase());
    if (!f) throw invalidQuery(`'outFields' names '${name.slice(0, 64)}', which is not a field of this layer.`);
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

function orderBy(layer: LayerRow, v: string | undefined): QuerySpec['orderBy'] {
  if (v === undefined || v.trim() === '') return [];
  const byName = new Map(layer.fields.map((f) => [f.column, f]));
  return v.split(',').map((part) => {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s+(ASC|DESC))?\s*$/i.exec(part);
    const f = m ? byName.get(m[1].toLowerCase()) : undefined;
    if (!m || !f)
      throw invalidQuery(`'orderByFields' entry '${part.trim().slice(0, 64)}' is not '<field> [ASC|DESC]' for a field of this layer.`);
    return { field: f, desc: (m[2] ?? 'ASC').toUpperCase() === 'DESC' };
  });
}

/**
 * Who a resume point is kept for (query/resume-points.ts): the caller, as known-layers.ts keys what it remembers
 * (anonymous callers share one), and the definitions it was allowed to read.
 */
const resumeScope = (caller: Caller | undefined, stamp: string) => JSON.stringify([caller?.userId ?? null, stamp]);

@Injectable()
export class QueryService {
  /** Spatial references found in spatial_ref_sys: a page costs one round trip fewer once its srid has been seen. */
  private readonly knownSrids = new Set<number>();
  private readonly known = new KnownLayers();

  constructor(
    private readonly features: FeatureServerService,
    private readonly data: FeatureDataRepository,
    private readonly gate: FeatureGate,
    private readonly pbf: PbfQueryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Database errors (the clause meeting the data, the statement timeout, a full pool) are mapped by FeatureDataRepository.
   * With `reply` (an anonymous request caches may answer), the reply gets the service's cacheMaxAge and a validator,
   * checked against the request's If-None-Match before the page is built.
   */
  query(caller: Caller | undefined, name: string, layerId: string, p: QueryDto, reply?: PublicReply) {
    return this.gate.run(caller, () => this.run(caller, name, layerId, p, reply));
  }

  private async run(caller: Caller | undefined, name: string, layerId: string, p: QueryDto, reply?: PublicReply) {
    // A cacheable reply takes the usual lookups, which read the data version with them, before any page is read: the
    // remembered layer's page checks its definitions in the statement that reads the rows.
    const known = reply ? undefined : this.known.get(caller, name, layerId);
    let early: { error: unknown } | undefined;
    if (known)
      try {
        const reply = await this.knownPage(caller, name, known, p);
        if (reply) return reply;
      } catch (error) {
        // Nothing is told before the usual lookups have found the service visible and its definitions unchanged.
        early = { error };
      }
    const { service, layer, stamp, version, viewWhere } = await this.queryable(caller, name, layerId, !!reply);
    this.known.remember(caller, name, layerId, { service, layer, stamp });
    if (early && known?.stamp === stamp) throw early.error;
    // A clause on the clock, the request's or a view layer's, selects other rows as time passes, with no edit to change
    // the validator: a 304 would keep rows the view no longer shows.
    const clock = (spec: QuerySpec) => spec.whereReadsClock || (!!viewWhere && whereReadsClock(viewWhere));
    const current = (spec: QuerySpec) =>
      reply?.validate(
        version == null || clock(spec) ? undefined : replyEtag(stamp, version),
        service.cache_max_age ?? this.config.query.cacheMaxAgeS,
      );
    if (isAggregated(p)) {
      // orderByFields names the aggregated reply's columns, not the layer's: aggregateRequest reads it.
      const spec = await this.spec(service, layer, { ...p, orderByFields: undefined }, false);
      if (current(spec)) return new NotModified();
      const a = aggregateRequest(layer, p, spec.outFields);
      return aggregateReply(this.data, service.schema_name, layer, spec, a, p.f === 'pbf' ? 'pbf' : 'json');
    }
    const geojson = p.f === 'geojson';
    const spec = await this.spec(service, layer, p, geojson);
    if (current(spec)) return new NotModified();
    const countOnly = boolParam('returnCountOnly', p.returnCountOnly, false);
    const idsOnly = boolParam('returnIdsOnly', p.returnIdsOnly, false);
    if (p.f === 'pbf')
      return this.pbf.query(service.schema_name, layer, spec, p, { count: countOnly, ids: idsOnly }, undefined, resumeScope(caller, stamp));
    if (boolParam('returnExtentOnly', p.returnExtentOnly, false)) {
      const { count, extent } = await this.data.countAndExtent(service.schema_name, layer, spec);
      // GeoJSON's bbox (in WGS 84, as its features are), which GDAL reads for a layer's extent; none when empty.
      if (geojson)
        return {
          type: 'FeatureCollection',
          ...(countOnly ? { properties: { count } } : {}),
          ...(extent ? { bbox: extent } : {}),
          features: [],
        };
      // ArcGIS writes an empty selection's extent as NaN coordinates, which its clients read as an empty extent.
      const [xmin, ymin, xmax, ymax] = extent ?? ['NaN', 'NaN', 'NaN', 'NaN'];
      const spatialReference = { wkid: spec.outWkid, latestWkid: spec.outSrid };
      return { ...(countOnly ? { count } : {}), extent: { xmin, ymin, xmax, ymax, spatialReference } };
    }
    if (countOnly)
      return geojson
        ? { type: 'FeatureCollection', properties: { count: await this.data.count(service.schema_name, layer, spec) }, features: [] }
        : { count: await this.data.count(service.schema_name, layer, spec) };
    if (idsOnly) return { objectIdFieldName: layer.object_id_field, objectIds: await this.data.ids(service.schema_name, layer, spec) };
    return (await this.pageReply(service, layer, spec, p, undefined, resumeScope(caller, stamp)))!;
  }

  /**
   * The service and layer a read of features names, once the caller may read them and the service allows queries;
   * with `withVersion`, the layer's data version read with them (null when its edits are not counted) and, for a view
   * layer, its viewDefinitionQuery.
   */
  async queryable(
    caller: Caller | undefined,
    name: string,
    layerId: string,
    withVersion = false,
  ): Promise<KnownLayer & { version?: string | null; viewWhere?: string | null }> {
    const { service, layer, stamp, version, viewWhere } = await this.features.readableWithLayer(caller, name, layerId, withVersion);
    if (!service.capabilities.split(',').includes('Query'))
      throw Errors.badRequest('This service does not allow queries.', ["The service's capabilities do not include Query."]);
    if (!layer || stamp === null) throw this.features.layerMissing(service, layerId);
    return { service, layer, stamp, version, viewWhere };
  }

  /**
   * FeatureServer/<layer>/<oid> (getFeature): the feature with every field and its geometry, as a query for its
   * object id would give it; the 404 envelope when the layer has no such feature.
   */
  feature(caller: Caller | undefined, name: string, layerId: string, featureId: string) {
    const oid = /^\d{1,10}$/.test(featureId) ? Number(featureId) : NaN;
    return this.gate.run(caller, async () => {
      const { service, layer } = await this.queryable(caller, name, layerId);
      const spec = await this.spec(service, layer, oid >= 1 && oid <= 2147483647 ? { objectIds: String(oid) } : { where: '1=0' }, false);
      const page = await this.data.featurePage(service.schema_name, layer, spec, 'esri');
      if (!page.rows)
        throw new ArcgisError(404, 'Feature not found.', [`Layer ${layer.layer_id} has no feature ${featureId.slice(0, 16)}.`]);
      return new JsonText('{"feature":', page.features, '}');
    });
  }

  /**
   * A page of features (f=json, pjson, geojson, pbf) from the definitions a query of the layer read before, in one statement
   * that first checks them and the caller's access (known-layers.ts); undefined when the request asks for something
   * else, or the check failed and the usual way must be taken.
   */
  private async knownPage(caller: Caller | undefined, name: string, known: KnownLayer, p: QueryDto) {
    const other = ['returnCountOnly', 'returnIdsOnly', 'returnExtentOnly'] as const;
    if (isAggregated(p) || other.some((k) => boolParam(k, p[k], false))) return undefined;
    if (p.quantizationParameters && p.f !== 'pbf') return undefined;
    const { service, layer } = known;
    const spec = await this.spec(service, layer, p, p.f === 'geojson');
    const guard = knownLayerGuard(name, known, caller, spec.p);
    if (p.f === 'pbf')
      return this.pbf.query(service.schema_name, layer, spec, p, { count: false, ids: false }, guard, resumeScope(caller, known.stamp));
    return this.pageReply(service, layer, spec, p, guard, resumeScope(caller, known.stamp));
  }

  /**
   * The features page and the FeatureSet (or FeatureCollection) around it; undefined when `guard` did not hold.
   * `scope` (resumeScope) lets the page start where the caller's earlier page of the same selection ended.
   */
  private async pageReply(service: ServiceRow, layer: LayerRow, spec: QuerySpec, p: QueryDto, guard?: string, scope?: string) {
    const geojson = p.f === 'geojson';
    const page = await this.data.featurePage(service.schema_name, layer, spec, geojson ? 'geojson' : 'esri', guard, scope);
    if (!page.ok) return undefined;
    const exceeded = page.rows > spec.limit;
    // returnExceededLimitFeatures=false: a selection larger than one page comes back as no features and the flag, so
    // the client (the SDK's tile queries) splits its request instead of drawing a partial one.
    if (exceeded && !boolParam('returnExceededLimitFeatures', p.returnExceededLimitFeatures, true)) page.features = '';
    // PostgreSQL wrote the features; the members around them are serialised here, with an empty features array last
    // whose brackets take the features' text.
    const head = JSON.stringify(geojson ? this.geoJsonHead(exceeded) : this.featureSetHead(layer, spec, exceeded));
    return new JsonText(head.slice(0, -2), page.features, ']}');
  }

  /** Builds the validated query; also used by export to read layers with the same rules. */
  async spec(service: ServiceRow, layer: LayerRow, p: QueryDto, geojson: boolean): Promise<QuerySpec> {
    const sqlParams = new SqlParams();
    const whereColumns = new Set<string>();
    let whereReadsClock = false;
    const where = compileWhere(p.where?.trim() || '1=1', layer.fields, sqlParams, {
      onField: (f) => whereColumns.add(f.column),
      onClock: () => (whereReadsClock = true),
    });
    const whereParams = sqlParams.values.length;
    const out = geojson ? { srid: 4326, wkid: 4326 } : (srRequest('outSR', p.outSR) ?? { srid: layer.srid, wkid: layer.srid });
    const outSrid = out.srid;
    const offset = intParam('resultOffset', p.resultOffset, 0, 2_000_000_000) ?? 0;
    // Larger requests are capped, not refused: the client pages with whatever count comes back.
    const limit = Math.min(
      intParam('resultRecordCount', p.resultRecordCount, 1, 2_000_000_000) ?? service.max_record_count,
      service.max_record_count,
    );
    const env = envelopeParam(p, layer.srid);
    for (const srid of new Set([outSrid, ...(env ? [env.srid] : [])])) {
      if (this.knownSrids.has(srid)) continue;
      if (!(await this.features.sridExists(srid))) throw invalidQuery(`Unknown spatial reference wkid ${srid}.`);
      this.knownSrids.add(srid);
    }
    return {
      where,
      whereColumns: [...whereColumns],
      whereParams,
      whereReadsClock,
      p: sqlParams,
      objectIds: idList('objectIds', p.objectIds),
      outFields: resolveFields(layer, p.outFields),
      returnGeometry: boolParam('returnGeometry', p.returnGeometry, true),
      outSrid,
      outWkid: out.wkid,
      orientation: geojson ? 'ccw' : 'cw',
      orderBy: orderBy(layer, p.orderByFields),
      offset,
      limit,
      envelope: env,
      ...geometryOutput(layer, p, geojson ? 'geojson' : p.f === 'pbf' ? 'pbf' : 'json', outSrid),
    };
  }

  /** The FeatureSet members as ArcGIS orders them, `features` last. */
  private featureSetHead(layer: LayerRow, spec: QuerySpec, exceeded: boolean) {
    return {
      objectIdFieldName: layer.object_id_field,
      uniqueIdField: { name: layer.object_id_field, isSystemMaintained: true },
      globalIdFieldName: layer.fields.find((f) => f.type === 'esriFieldTypeGlobalID')?.name ?? '',
      ...(layer.geometry_type
        ? { geometryType: layer.geometry_type, spatialReference: { wkid: spec.outWkid, latestWkid: spec.outSrid } }
        : {}),
      ...(spec.quantize ? { transform: esriTransform(spec.quantize) } : {}),
      fields: spec.outFields.map(fieldInfo),
      ...(exceeded ? { exceededTransferLimit: true } : {}),
      features: [],
    };
  }

  private geoJsonHead(exceeded: boolean) {
    return { type: 'FeatureCollection', ...(exceeded ? { properties: { exceededTransferLimit: true } } : {}), features: [] };
  }
}

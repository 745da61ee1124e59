import { Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { JsonText } from '../core/http/json-text';
import { fieldInfo } from '../layers/layer-schema';
import { relationshipOf } from '../layers/relationships';
import { LayerRow } from '../layers/types';
import { FeatureGate } from './feature-gate';
import { FeatureDataRepository } from './feature-data.repository';
import { QueryRelatedDto } from './feature-server.dto';
import { FeatureServerService } from './feature-server.service';
import { boolParam, idList, intParam, invalidQuery } from './query-params';
import { QuerySpec } from './query/query-spec';
import { QueryService } from './query.service';

const column = (l: LayerRow, name: string) => l.fields.find((f) => f.name === name)!.column;

/**
 * queryRelatedRecords: the records of the layer or table related to features of this one, by a relationship both
 * sides declare, grouped by those features' object ids. Read with the rules of query (the same access, capability,
 * where compiler, outFields, orderByFields and paging, on the related layer), since both layers are of one service.
 */
@Injectable()
export class RelatedRecordsService {
  constructor(
    private readonly features: FeatureServerService,
    private readonly queries: QueryService,
    private readonly data: FeatureDataRepository,
    private readonly gate: FeatureGate,
  ) {}

  query(caller: Caller | undefined, name: string, layerId: string, p: QueryRelatedDto) {
    return this.gate.run(caller, () => this.run(caller, name, layerId, p));
  }

  private async run(caller: Caller | undefined, name: string, layerId: string, p: QueryRelatedDto) {
    const { service, layer } = await this.queries.queryable(caller, name, layerId);
    // arcgis-rest-js sends relationshipId 0 unless told otherwise, as ArcGIS defaults it.
    const relationshipId = intParam('relationshipId', p.relationshipId, 0, 1_000_000) ?? 0;
    const layers = await this.features.layersOf(service);
    const source = layers.find((l) => l.layer_id === layer.layer_id) ?? layer;
    const rel = relationshipOf(layers, source, relationshipId);
    if (!rel) throw invalidQuery(`Layer ${source.layer_id} has no relationship ${relationshipId}.`);
    const target = rel.related;
    const spec = await this.queries.spec(
      service,
      target,
      {
        where: p.definitionExpression,
        outFields: p.outFields,
        returnGeometry: p.returnGeometry,
        outSR: p.outSR,
        orderByFields: p.orderByFields,
        resultOffset: p.resultOffset,
        resultRecordCount: p.resultRecordCount,
        maxAllowableOffset: p.maxAllowableOffset,
        geometryPrecision: p.geometryPrecision,
        f: 'json',
      },
      false,
    );
    const join = {
      sourceKey: column(source, rel.side.keyField),
      targetKey: column(target, rel.other.keyField),
      sourceIds: idList('objectIds', p.objectIds),
    };
    if (boolParam('returnCountOnly', p.returnCountOnly, false)) {
      const counts = await this.data.relatedCounts(service.schema_name, source, target, join, spec);
      return { relatedRecordGroups: counts.map((c) => ({ objectId: c.oid, count: c.n })) };
    }
    const rows = await this.data.relatedPage(service.schema_name, source, target, join, spec);
    return this.reply(target, spec, rows);
  }

  /** The reply as ArcGIS orders it, the features' text as PostgreSQL wrote it, grouped by consecutive source ids. */
  private reply(target: LayerRow, spec: QuerySpec, rows: { src: number; f: string }[]) {
    const exceeded = rows.length > spec.limit;
    const groups: string[] = [];
    let open: number | undefined;
    for (const { src, f } of rows.slice(0, spec.limit)) {
      if (src !== open) {
        groups.push(`${open === undefined ? '' : ']},'}{"objectId":${Number(src)},"relatedRecords":[${f}`);
        open = src;
      } else groups.push(`,${f}`);
    }
    const head = {
      ...(target.geometry_type
        ? { geometryType: target.geometry_type, spatialReference: { wkid: spec.outWkid, latestWkid: spec.outSrid } }
        : {}),
      hasZ: false,
      hasM: false,
      fields: spec.outFields.map(fieldInfo),
      ...(exceeded ? { exceededTransferLimit: true } : {}),
      relatedRecordGroups: [],
    };
    return new JsonText(JSON.stringify(head).slice(0, -2), ...groups, open === undefined ? ']}' : ']}]}');
  }
}

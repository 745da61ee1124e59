/**
 * Replies to aggregated queries (statistics.ts). Statistics come back as ArcGIS writes them, a feature set of
 * `displayFieldName`, `fieldAliases`, `fields` and attribute-only features; distinct values as the layer's feature
 * set without geometries. At most one page of rows crosses into JavaScript, so the reply is built here.
 */
import { StreamableFile } from '@nestjs/common';
import { FeatureDataRepository } from '../feature-data.repository';
import { QuerySpec } from './query-spec';
import { LayerRow } from '../../layers/types';
import { fieldInfo, FieldType } from '../../layers/layer-schema';
import { encodeCount, encodeFeatureResult } from '../pbf/feature-collection';
import { PBF_CONTENT_TYPE } from '../pbf/pbf-query.service';
import { AggregateColumn, AggregateQuery } from './statistics';

const pbf = (bytes: Buffer) => new StreamableFile(bytes, { type: PBF_CONTENT_TYPE, length: bytes.length });

/** The integer types a sum keeps while its values fit them, widest last. */
const RANGE: Partial<Record<FieldType, number>> = { esriFieldTypeSmallInteger: 32767, esriFieldTypeInteger: 2147483647 };

/**
 * A sum keeps its field's type, as ArcGIS declares it, unless a value does not fit: a sum of small integers
 * readily exceeds them, and a client reading an integer field (pbf's 32-bit values) would get it wrong.
 */
function declaredType(c: AggregateColumn, values: unknown[]): FieldType {
  if (c.op !== 'sum') return c.type;
  const fits = (t: FieldType) => values.every((v) => typeof v !== 'number' || Math.abs(v) <= RANGE[t]!);
  if (!(c.type in RANGE) || fits(c.type)) return c.type;
  return c.type === 'esriFieldTypeSmallInteger' && fits('esriFieldTypeInteger') ? 'esriFieldTypeInteger' : 'esriFieldTypeDouble';
}

function fieldOf(c: AggregateColumn, type: FieldType) {
  if (c.op === 'value') return fieldInfo(c.field!);
  const length = type === 'esriFieldTypeString' ? c.field?.length : undefined;
  return {
    name: c.name,
    type,
    alias: c.name,
    sqlType: 'sqlTypeOther',
    ...(length !== undefined ? { length } : {}),
    domain: null,
    defaultValue: null,
  };
}

export async function aggregateReply(
  data: FeatureDataRepository,
  schema: string,
  layer: LayerRow,
  spec: QuerySpec,
  a: AggregateQuery,
  format: 'json' | 'pbf',
): Promise<object> {
  if (a.countOnly) {
    const count = await data.distinctCount(schema, layer, spec, a);
    return format === 'pbf' ? pbf(encodeCount(count)) : { count };
  }
  const rows = await data.aggregate(schema, layer, spec, a);
  const exceeded = a.keys > 0 && rows.length > spec.limit;
  if (exceeded) rows.length = spec.limit;
  const values = a.columns.map((_, i) => rows.map((r) => r[`#${i}`]));
  const types = a.columns.map((c, i) => declaredType(c, values[i]));
  const fields = a.columns.map((c, i) => fieldOf(c, types[i]));
  const objectIdFieldName = a.kind === 'distinct' ? layer.object_id_field : '';
  const globalIdFieldName = layer.fields.find((f) => f.type === 'esriFieldTypeGlobalID')?.name ?? '';
  if (format === 'pbf') {
    // Whole milliseconds: pbf carries dates as 64-bit integers.
    const pbfRows = rows.map((r) => a.columns.map((_, i) => (types[i] === 'esriFieldTypeDate' ? round(r[`#${i}`]) : r[`#${i}`])));
    return pbf(
      encodeFeatureResult({
        objectIdFieldName,
        globalIdFieldName,
        exceededTransferLimit: exceeded,
        fields: fields.map((f, i) => ({ name: f.name, type: types[i], alias: f.alias })),
        rows: pbfRows,
      }),
    );
  }
  const features = rows.map((r) => ({ attributes: Object.fromEntries(a.columns.map((c, i) => [c.name, r[`#${i}`] ?? null])) }));
  const more = exceeded ? { exceededTransferLimit: true } : {};
  if (a.kind === 'statistics') {
    const fieldAliases = Object.fromEntries(fields.map((f) => [f.name, f.alias]));
    return { displayFieldName: '', fieldAliases, fields, ...more, features };
  }
  // The layer's feature set as a page of features without geometry has it, `features` last.
  return {
    objectIdFieldName,
    uniqueIdField: { name: objectIdFieldName, isSystemMaintained: true },
    globalIdFieldName,
    ...(layer.geometry_type
      ? { geometryType: layer.geometry_type, spatialReference: { wkid: spec.outWkid, latestWkid: spec.outSrid } }
      : {}),
    fields,
    ...more,
    features,
  };
}

const round = (v: unknown) => (typeof v === 'number' ? Math.round(v) : v);

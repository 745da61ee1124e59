/**
 * The statements of queryRelatedRecords: the related layer's rows joined to the source features they belong to, each
 * carrying its source's object id as "#src" (which no field can be named), filtered by the related layer's where
 * clause already compiled into `q`.
 */
import { ident } from '../../layers/layer-schema';
import { LayerRow } from '../../layers/types';
import { QuerySpec } from './query-spec';

/** The two key columns a relationship joins on, and the source features asked for (all when undefined). */
export interface RelatedJoin {
  sourceKey: string;
  targetKey: string;
  sourceIds?: number[];
}

export const oidColumnOf = (l: LayerRow) => ident(l.fields.find((f) => f.type === 'esriFieldTypeOID')!.column);

/** `FROM … WHERE …` over the joined rows, aliased t, with "#src" beside the related layer's columns. */
export function relatedFrom(schema: string, source: LayerRow, target: LayerRow, join: RelatedJoin, q: QuerySpec): string {
  const table = (l: LayerRow) => `${ident(schema)}.${ident(l.table_name)}`;
  const ids = join.sourceIds ? ` WHERE s.${oidColumnOf(source)} = ANY(${q.p.add(join.sourceIds)}::int[])` : '';
  return `FROM (SELECT s.${oidColumnOf(source)} AS "#src", t.* FROM ${table(source)} s
      JOIN ${table(target)} t ON t.${ident(join.targetKey)} = s.${ident(join.sourceKey)}${ids}) t WHERE (${q.where})`;
}

/** The page's window: grouped by source feature, then the caller's order, then the related object id; `limit + 1` rows. */
export function relatedWindow(from: string, target: LayerRow, q: QuerySpec): string {
  const order = [
    '"#src"',
    ...q.orderBy.map((o) => `${ident(o.field.column)} ${o.desc ? 'DESC' : 'ASC'} NULLS ${o.desc ? 'FIRST' : 'LAST'}`),
    oidColumnOf(target),
  ];
  return `${from} ORDER BY ${order.join(', ')} LIMIT ${q.p.add(q.limit + 1)} OFFSET ${q.p.add(q.offset)}`;
}

/** returnCountOnly: the number of related rows per source feature that has any, in object id order. */
export function relatedCountsSql(from: string): string {
  return `SELECT "#src" AS oid, count(*)::int AS n ${from} GROUP BY "#src" ORDER BY "#src"`;
}

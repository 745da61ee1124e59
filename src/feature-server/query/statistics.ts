/**
 * Aggregated queries, as ArcGIS answers them: `outStatistics` (optionally grouped by `groupByFieldsForStatistics`) and
 * `returnDistinctValues`. This reads and validates the request into columns; statistics-sql.ts writes the statement
 * and statistics-reply.ts the reply. Nothing the caller sends reaches the SQL as text: fields are the layer's own,
 * output names only ever appear in the reply.
 */
import { requiredJsonParam } from '../../core/http/param-values';
import { QueryDto } from '../feature-server.dto';
import { LayerRow } from '../../layers/types';
import { FieldType, LayerField } from '../../layers/layer-schema';
import { boolParam, invalidQuery } from '../query-params';

export const STATISTIC_TYPES = ['count', 'sum', 'min', 'max', 'avg', 'stddev', 'var'] as const;
export type StatisticType = (typeof STATISTIC_TYPES)[number];

/** One column of an aggregated reply. */
export interface AggregateColumn {
  /** The attribute's name in the reply. */
  name: string;
  /** The type the reply declares; a sum may be widened once its values are read (see statistics-reply.ts). */
  type: FieldType;
  /** 'value': a group-by or distinct field as it is; otherwise the statistic computed over `field`. */
  op: 'value' | StatisticType;
  /** The layer field read; absent for count('*'). */
  field?: LayerField;
}

export interface AggregateQuery {
  kind: 'statistics' | 'distinct';
  /** The group-by (or distinct) columns first, then the statistics. */
  columns: AggregateColumn[];
  /** How many leading columns are group-by or distinct values: rows are unique by them, and paged when there are any. */
  keys: number;
  order: { column: number; desc: boolean }[];
  /** returnDistinctValues with returnCountOnly: the number of distinct rows. */
  countOnly: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_STATISTICS = 100;
const NUMERIC = new Set<FieldType>([
  'esriFieldTypeOID',
  'esriFieldTypeSmallInteger',
  'esriFieldTypeInteger',
  'esriFieldTypeBigInteger',
  'esriFieldTypeSingle',
  'esriFieldTypeDouble',
]);
const text = (v: unknown) => String(v).slice(0, 64);

/** Whether the request asks for an aggregated reply (or names one of its parameters, which then must make sense). */
export function isAggregated(p: QueryDto): boolean {
  return (
    !!p.outStatistics?.trim() ||
    !!p.groupByFieldsForStatistics?.trim() ||
    !!p.having?.trim() ||
    boolParam('returnDistinctValues', p.returnDistinctValues, false)
  );
}

/**
 * The aggregated query asked for. `outFields` are the query's resolved out fields (the distinct columns); the
 * request's orderByFields is read here, since it names the reply's columns rather than the layer's.
 */
export function aggregateRequest(layer: LayerRow, p: QueryDto, outFields: LayerField[]): AggregateQuery {
  if (p.f === 'geojson') throw invalidQuery("'outStatistics' and 'returnDistinctValues' are answered in f=json, pjson or pbf.");
  if (p.having?.trim()) throw invalidQuery("'having' is not supported by this server (supportsHavingClause is false).");
  const only = (['returnIdsOnly', 'returnExtentOnly'] as const).find((k) => boolParam(k, p[k], false));
  const countOnly = boolParam('returnCountOnly', p.returnCountOnly, false);
  const statistics = p.outStatistics?.trim();
  if (statistics) {
    if (boolParam('returnDistinctValues', p.returnDistinctValues, false))
      throw invalidQuery("'returnDistinctValues' cannot be combined with 'outStatistics'.");
    if (only ?? countOnly) throw invalidQuery(`'${only ?? 'returnCountOnly'}' cannot be combined with 'outStatistics'.`);
    const keys = groupBy(layer, p.groupByFieldsForStatistics);
    const columns = [...keys.map(valueColumn), ...parseStatistics(layer, statistics)];
    unique(columns);
    return { kind: 'statistics', columns, keys: keys.length, order: order(columns, p.orderByFields, 'statistics'), countOnly: false };
  }
  if (p.groupByFieldsForStatistics?.trim()) throw invalidQuery("'groupByFieldsForStatistics' needs 'outStatistics'.");
  if (only) throw invalidQuery(`'${only}' cannot be combined with 'returnDistinctValues'.`);
  const columns = outFields.map(valueColumn);
  return { kind: 'distinct', columns, keys: columns.length, order: order(columns, p.orderByFields, 'distinct'), countOnly };
}

function valueColumn(f: LayerField): AggregateColumn {
  return { name: f.name, type: f.type, op: 'value', field: f };
}

function layerField(layer: LayerRow, name: string): LayerField | undefined {
  return NAME.test(name) ? layer.fields.find((f) => f.column === name.toLowerCase()) : undefined;
}

function groupBy(layer: LayerRow, list: string | undefined): LayerField[] {
  const out: LayerField[] = [];
  for (const raw of list?.trim() ? list.split(',') : []) {
    const f = layerField(layer, raw.trim());
    if (!f)
      throw invalidQuery(
        `'groupByFieldsForStatistics' names '${text(raw.trim())}', which is not a field of this layer (expressions are not supported).`,
      );
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

const NOT_A_LIST = "'outStatistics' must be a non-empty array of {statisticType, onStatisticField, outStatisticFieldName}.";

function parseStatistics(layer: LayerRow, json: string): AggregateColumn[] {
  const list = requiredJsonParam<unknown[]>('outStatistics', json, 'array', (p) =>
    invalidQuery(
      p.problem === 'syntax'
        ? "'outStatistics' is not valid JSON: give an array of {statisticType, onStatisticField, outStatisticFieldName}."
        : p.problem === 'nul'
          ? p.message
          : NOT_A_LIST,
    ),
  );
  if (!list.length) throw invalidQuery(NOT_A_LIST);
  if (list.length > MAX_STATISTICS) throw invalidQuery(`'outStatistics' asks for more than ${MAX_STATISTICS} statistics.`);
  return list.map((s) => statistic(layer, s));
}

function statistic(layer: LayerRow, s: unknown): AggregateColumn {
  if (!s || typeof s !== 'object' || Array.isArray(s)) throw invalidQuery("Each 'outStatistics' entry must be an object.");
  const { statisticType, onStatisticField, outStatisticFieldName } = s as Record<string, unknown>;
  const op = typeof statisticType === 'string' ? statisticType.trim().toLowerCase() : '';
  if (!(STATISTIC_TYPES as readonly string[]).includes(op))
    throw invalidQuery(
      `'statisticType' ${JSON.stringify(statisticType ?? null)} is not supported; use one of ${STATISTIC_TYPES.join(', ')}.`,
    );
  const type = op as StatisticType;
  const on = typeof onStatisticField === 'string' ? onStatisticField.trim() : '';
  let field: LayerField | undefined;
  if (on !== '*' || type !== 'count') {
    field = layerField(layer, on);
    if (!field)
      throw invalidQuery(
        `'onStatisticField' ${JSON.stringify(text(on))} is not a field of this layer; expressions are not supported (supportsSqlExpression is false)${on === '*' ? ", and '*' only counts" : ''}.`,
      );
  }
  const name =
    outStatisticFieldName === undefined || outStatisticFieldName === null || outStatisticFieldName === ''
      ? // ArcGIS names an unnamed statistic after what it computes.
        `${type.toUpperCase()}_${field?.name ?? layer.object_id_field}`
      : outStatisticFieldName;
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalidQuery(`'outStatisticFieldName' ${JSON.stringify(text(name))} must be letters, digits and '_', not starting with a digit.`);
  return { name, type: resultType(type, field), op: type, field };
}

/** count is an integer; avg, stddev and var are doubles; sum, min and max keep the field's type. */
function resultType(op: StatisticType, f: LayerField | undefined): FieldType {
  if (op === 'count') return 'esriFieldTypeInteger';
  const t = f!.type;
  const numeric = NUMERIC.has(t);
  if (op === 'min' || op === 'max') {
    if (t === 'esriFieldTypeGUID' || t === 'esriFieldTypeGlobalID')
      throw invalidQuery(`'${op}' is not defined for the GUID field '${f!.name}'.`);
    return t === 'esriFieldTypeOID' ? 'esriFieldTypeInteger' : t;
  }
  if (!numeric) throw invalidQuery(`'${op}' needs a numeric field; '${f!.name}' is ${t}.`);
  if (op !== 'sum' || t === 'esriFieldTypeSingle' || t === 'esriFieldTypeDouble') return 'esriFieldTypeDouble';
  return t === 'esriFieldTypeOID' ? 'esriFieldTypeInteger' : t;
}

/** Reply attributes are looked up by name, so two columns may not share one (whatever its case). */
function unique(columns: AggregateColumn[]): void {
  const seen = new Set<string>();
  for (const c of columns) {
    const key = c.name.toLowerCase();
    if (seen.has(key))
      throw invalidQuery(
        `'${c.name}' names two columns of the reply; give each statistic its own 'outStatisticFieldName', other than the group-by fields.`,
      );
    seen.add(key);
  }
}

/** orderByFields names the reply's columns: group-by fields and output names, or the distinct fields. */
function order(columns: AggregateColumn[], v: string | undefined, kind: AggregateQuery['kind']): AggregateQuery['order'] {
  if (!v?.trim()) return [];
  return v.split(',').map((part) => {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\s+(ASC|DESC))?\s*$/i.exec(part);
    const column = m ? columns.findIndex((c) => c.name.toLowerCase() === m[1].toLowerCase()) : -1;
    if (column < 0)
      throw invalidQuery(
        kind === 'statistics'
          ? `'orderByFields' entry '${text(part.trim())}' is not '<name> [ASC|DESC]' for a group-by field or an outStatisticFieldName.`
          : `'orderByFields' entry '${text(part.trim())}' is not '<field> [ASC|DESC]' for one of the outFields (distinct values are ordered by their own fields).`,
      );
    return { column, desc: (m![2] ?? 'ASC').toUpperCase() === 'DESC' };
  });
}

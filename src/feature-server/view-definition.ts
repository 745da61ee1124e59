/**
 * One layer of a view's addToDefinition, as ArcGIS takes it: `adminLayerInfo.viewLayerDefinition` names the source
 * (`sourceServiceName`, `sourceLayerId`, `sourceLayerFields`, directly or in `table`), the layer's
 * `viewDefinitionQuery` (or `definitionQuery`) filters its rows, and `viewLayerDefinition.filter` its area. Joins
 * (`relatedTables`) are refused: this service makes views of one layer.
 */
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { LayerDefinition, LayerField, normaliseWkid } from '../layers/layer-schema';
import { LayerRow, ServiceRow } from '../layers/types';
import { ViewLayerDefinition } from '../layers/view-schema';
import { renderWhereSql } from '../where/compile';

function bad(detail: string): never {
  throw Errors.badRequest('Invalid layer definition.', [detail]);
}

/** What names the source of one entry, before the source is looked up. */
export interface ViewSourceRef {
  id?: number;
  name?: string;
  sourceServiceName: string;
  sourceLayerId: number;
  raw: Record<string, unknown>;
  definition: Record<string, unknown>;
}

/** Reads an entry's source reference; refuses entries that are not a view layer of one source. */
export function viewSourceRef(raw: unknown): ViewSourceRef {
  if (!raw || typeof raw !== 'object') bad('Each layer must be a JSON object.');
  const l = raw as Record<string, unknown>;
  const vld = (l.adminLayerInfo as { viewLayerDefinition?: unknown } | undefined)?.viewLayerDefinition;
  if (!vld || typeof vld !== 'object')
    bad(
      "A view's layers name their source in 'adminLayerInfo.viewLayerDefinition' ({sourceServiceName, sourceLayerId, sourceLayerFields}).",
    );
  const def = vld as Record<string, unknown>;
  const table = def.table as Record<string, unknown> | undefined;
  if (table !== undefined && (typeof table !== 'object' || table === null)) bad("'viewLayerDefinition.table' must be an object.");
  if (table && Array.isArray(table.relatedTables) && table.relatedTables.length)
    bad('Joined views (relatedTables) are not supported: a view reads one source layer.');
  const src = table ?? def;
  if (typeof src.sourceServiceName !== 'string' || !src.sourceServiceName.trim())
    bad("'viewLayerDefinition.sourceServiceName' must name the source service.");
  const layerId =
    typeof src.sourceLayerId === 'string' && /^\d{1,9}$/.test(src.sourceLayerId) ? Number(src.sourceLayerId) : src.sourceLayerId;
  if (!Number.isInteger(layerId) || (layerId as number) < 0) bad("'viewLayerDefinition.sourceLayerId' must be a layer id.");
  const id = l.id;
  if (id !== undefined && (!Number.isInteger(id) || (id as number) < 0 || (id as number) > 1e6))
    bad(`Layer id ${JSON.stringify(id)} must be a whole number 0-1000000.`);
  return {
    id: id as number | undefined,
    name: typeof l.name === 'string' && l.name.trim() ? l.name.trim().slice(0, 128) : undefined,
    sourceServiceName: (src.sourceServiceName as string).trim(),
    sourceLayerId: layerId as number,
    raw: l,
    definition: { ...def, sourceLayerFields: src.sourceLayerFields },
  };
}

/** The source fields the view shows: "*" (or none given) for all, else the list, OID always included. */
function visibleFields(source: LayerRow, spec: unknown, label: string): { field: LayerField; alias: string }[] {
  if (spec === undefined || spec === null || spec === '*') return source.fields.map((field) => ({ field, alias: field.alias }));
  if (!Array.isArray(spec) || !spec.length) bad(`${label}: 'sourceLayerFields' must be "*" or a list of {name, alias, source}.`);
  const byColumn = new Map(source.fields.map((f) => [f.column, f]));
  const chosen = new Map<string, { field: LayerField; alias: string }>();
  for (const entry of spec as unknown[]) {
    const e = (typeof entry === 'string' ? { name: entry } : entry) as { name?: unknown; alias?: unknown; source?: unknown } | null;
    const name = typeof e?.name === 'string' ? e.name : undefined;
    const from = typeof e?.source === 'string' ? e.source : name;
    if (!name || !from) bad(`${label}: each of 'sourceLayerFields' needs a 'name'.`);
    if (name.toLowerCase() !== from.toLowerCase())
      bad(`${label}: field '${name}' must keep its source's name ('${from}'); only aliases change.`);
    const field = byColumn.get(from.toLowerCase());
    if (!field) bad(`${label}: the source layer has no field '${from}'.`);
    chosen.set(field.column, { field, alias: typeof e?.alias === 'string' && e.alias ? e.alias.slice(0, 256) : field.alias });
  }
  // In source order, with the OID the view's features are identified by.
  return source.fields
    .filter((f) => chosen.has(f.column) || f.type === 'esriFieldTypeOID')
    .map((f) => chosen.get(f.column) ?? { field: f, alias: f.alias });
}

function viewQuery(raw: Record<string, unknown>, definition: Record<string, unknown>): string {
  const q = raw.viewDefinitionQuery ?? raw.definitionQuery ?? definition.viewDefinitionQuery;
  if (q === undefined || q === null) return '';
  if (typeof q !== 'string') bad("'viewDefinitionQuery' must be a where clause.");
  return q.trim();
}

function areaFilter(definition: Record<string, unknown>, label: string, defaultWkid: number): ViewLayerDefinition['filter'] {
  const f = definition.filter as { operator?: unknown; value?: { geometryType?: unknown; geometry?: Record<string, unknown> } } | undefined;
  if (f === undefined || f === null) return undefined;
  if (typeof f !== 'object') bad(`${label}: 'filter' must be {operator, value: {geometryType, geometry}}.`);
  if (f.operator !== 'esriSpatialRelIntersects') bad(`${label}: the view's 'filter' supports operator esriSpatialRelIntersects only.`);
  if (f.value?.geometryType !== 'esriGeometryEnvelope') bad(`${label}: the view's 'filter' takes an esriGeometryEnvelope.`);
  const g = f.value.geometry ?? {};
  const [xmin, ymin, xmax, ymax] = [g.xmin, g.ymin, g.xmax, g.ymax];
  if (![xmin, ymin, xmax, ymax].every((n) => typeof n === 'number' && Number.isFinite(n)))
    bad(`${label}: the filter's envelope needs numbers xmin, ymin, xmax and ymax.`);
  if ((xmin as number) > (xmax as number) || (ymin as number) > (ymax as number)) bad(`${label}: the filter's envelope is empty.`);
  const sr = g.spatialReference as { wkid?: unknown; latestWkid?: unknown } | undefined;
  const wkid = sr?.latestWkid ?? sr?.wkid ?? defaultWkid;
  if (!Number.isInteger(wkid) || (wkid as number) <= 0) bad(`${label}: the filter's spatialReference needs a wkid.`);
  return {
    operator: 'esriSpatialRelIntersects',
    value: {
      geometryType: 'esriGeometryEnvelope',
      geometry: {
        xmin: xmin as number,
        ymin: ymin as number,
        xmax: xmax as number,
        ymax: ymax as number,
        spatialReference: { wkid: normaliseWkid(wkid as number) },
      },
    },
  };
}

export interface ParsedViewLayer {
  def: LayerDefinition;
  view: ViewLayerDefinition;
  whereSql: string | null;
}

/** The view layer over `source` that `ref` asks for: its definition, what is stored of it and its compiled filter. */
export function parseViewLayer(ref: ViewSourceRef, source: LayerRow): ParsedViewLayer {
  const name = ref.name ?? source.name;
  const label = `Layer '${name}'`;
  const shown = visibleFields(source, ref.definition.sourceLayerFields, label);
  const query = viewQuery(ref.raw, ref.definition);
  let whereSql: string | null = null;
  if (query) {
    try {
      // Against the source's fields: a view may filter on a field it hides.
      whereSql = renderWhereSql(query, source.fields);
    } catch (e) {
      if (e instanceof ArcgisError) bad(`${label}: viewDefinitionQuery: ${e.details.join(' ') || e.message}`);
      throw e;
    }
  }
  const filter = source.geometry_type ? areaFilter(ref.definition, label, source.srid) : undefined;
  const fields = shown.map(({ field, alias }) => ({ ...field, alias }));
  const display = fields.find((f) => f.name === source.display_field)?.name ?? null;
  return {
    def: {
      name,
      kind: source.kind,
      geometryType: source.geometry_type,
      srid: source.srid,
      objectIdField: source.object_id_field,
      displayField: display,
      fields,
      // The source's attachments, of the features the view shows (LayersRepository.attachmentsLayer).
      hasAttachments: source.has_attachments,
    },
    view: {
      sourceServiceName: ref.sourceServiceName,
      sourceLayerId: ref.sourceLayerId,
      sourceLayerFields: shown.map(({ field, alias }) => ({ name: field.name, alias, source: field.name })),
      viewDefinitionQuery: query,
      ...(filter ? { filter } : {}),
    },
    whereSql,
  };
}

/** What a view's service and layer JSON add, as ArcGIS Online describes a hosted view (nothing for other services). */
export function viewJson(service: ServiceRow) {
  return service.is_view ? { isView: true, isUpdatableView: true, sourceSchemaChangesAllowed: true } : {};
}

/**
 * The sources' relationships between layers the view shows both of, as ArcGIS keeps them in a view: each side
 * renumbered to the view's layer ids, and kept only while its key field is one the view shows. Ids are given to the
 * new layers here (as addLayers would) so that the sides can name each other.
 */
export function keepRelationships(
  entries: { id?: number; def: LayerDefinition; view: { source: { itemId: string; layerId: number } } }[],
  sources: LayerRow[],
  existing: LayerRow[],
): void {
  let next = Math.max(-1, ...existing.map((l) => l.layer_id), ...entries.map((e) => e.id ?? -1)) + 1;
  for (const e of entries) e.id ??= next++;
  entries.forEach((e, i) => {
    const kept = (sources[i].relationships ?? []).flatMap((r) => {
      const related = entries.find((o) => o.view.source.itemId === e.view.source.itemId && o.view.source.layerId === r.relatedTableId);
      return related && e.def.fields.some((f) => f.name === r.keyField) ? [{ ...r, relatedTableId: related.id! }] : [];
    });
    if (kept.length) e.def.relationships = kept;
  });
}

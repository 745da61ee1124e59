/**
 * Relationships between a service's layers and tables, as ArcGIS declares them: each side lists the relationship in
 * its own definition (`relationships: [{id, name, relatedTableId, cardinality, role, keyField, composite}]`), the
 * origin naming its key and the destination its foreign key. A relationship works, and is listed, once both sides
 * are declared; one side alone is kept, so that two updateDefinition calls (one per side) build it as in ArcGIS.
 */
import { Errors } from '../core/errors/arcgis-error';
import { FieldType, LayerField, LayerRelationship } from './layer-schema';
import { LayerRow } from './types';

const CARDINALITIES = ['esriRelCardinalityOneToOne', 'esriRelCardinalityOneToMany'] as const;
const ROLES = ['esriRelRoleOrigin', 'esriRelRoleDestination'] as const;
const MAX_PER_LAYER = 100;

function bad(detail: string): never {
  throw Errors.badRequest('Invalid definition.', [detail]);
}

/** Which key fields can match: the same kind of value, compared by PostgreSQL's equality. */
const KEY_KIND: Partial<Record<FieldType, string>> = {
  esriFieldTypeOID: 'integer',
  esriFieldTypeSmallInteger: 'integer',
  esriFieldTypeInteger: 'integer',
  esriFieldTypeBigInteger: 'integer',
  esriFieldTypeString: 'string',
  esriFieldTypeGUID: 'uuid',
  esriFieldTypeGlobalID: 'uuid',
};

/** The `relationships` array of one layer's definition, its key fields resolved against `fields`. */
export function parseRelationships(raw: unknown, layer: string, fields: LayerField[]): LayerRelationship[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) bad(`Layer '${layer}': 'relationships' must be an array.`);
  if (raw.length > MAX_PER_LAYER) bad(`Layer '${layer}': at most ${MAX_PER_LAYER} relationships.`);
  const seen = new Set<number>();
  return raw.map((entry: unknown) => {
    const r = (entry ?? {}) as Record<string, unknown>;
    if (typeof entry !== 'object' || Array.isArray(entry)) bad(`Layer '${layer}': each relationship must be a JSON object.`);
    const id = r.id;
    if (!Number.isInteger(id) || (id as number) < 0 || (id as number) > 1e6)
      bad(`Layer '${layer}': relationship 'id' must be a whole number 0-1000000.`);
    if (seen.has(id as number)) bad(`Layer '${layer}': relationship ${String(id)} is listed twice.`);
    seen.add(id as number);
    const at = `Layer '${layer}', relationship ${String(id)}`;
    const related = r.relatedTableId;
    if (!Number.isInteger(related) || (related as number) < 0) bad(`${at}: 'relatedTableId' must be a layer or table id.`);
    if (r.cardinality === 'esriRelCardinalityManyToMany') bad(`${at}: many-to-many relationships are not supported.`);
    if (!CARDINALITIES.includes(r.cardinality as never)) bad(`${at}: 'cardinality' must be one of ${CARDINALITIES.join(', ')}.`);
    if (!ROLES.includes(r.role as never)) bad(`${at}: 'role' must be one of ${ROLES.join(', ')}.`);
    if (r.composite !== undefined && typeof r.composite !== 'boolean') bad(`${at}: 'composite' must be true or false.`);
    if (r.name !== undefined && (typeof r.name !== 'string' || r.name.length > 128))
      bad(`${at}: 'name' must be text of at most 128 characters.`);
    const key = typeof r.keyField === 'string' ? fields.find((f) => f.column === (r.keyField as string).toLowerCase()) : undefined;
    if (!key) bad(`${at}: 'keyField' must name a field of the layer.`);
    if (!KEY_KIND[key.type]) bad(`${at}: key field '${key.name}' must be an integer, string, GUID or GlobalID field.`);
    return {
      id: id as number,
      name: typeof r.name === 'string' ? r.name : '',
      relatedTableId: related as number,
      cardinality: r.cardinality as LayerRelationship['cardinality'],
      role: r.role as LayerRelationship['role'],
      keyField: key.name,
      composite: r.composite === true,
    };
  });
}

type Layer = Pick<LayerRow, 'layer_id' | 'name' | 'fields' | 'relationships'>;

/** The side of relationship `id` listed by `layer`, and its counterpart on the related layer when declared. */
export function relationshipOf<L extends Layer>(
  layers: L[],
  layer: L,
  id: number,
): { side: LayerRelationship; other: LayerRelationship; related: L } | undefined {
  const side = layer.relationships?.find((r) => r.id === id);
  const related = side && layers.find((l) => l.layer_id === side.relatedTableId);
  const other = related?.relationships?.find((r) => r.id === id && r.relatedTableId === layer.layer_id);
  return side && related && other ? { side, other, related } : undefined;
}

/** The relationships of `layer` whose both sides are declared: what its JSON lists and queryRelatedRecords serves. */
export function workingRelationships(layers: Layer[], layer: Layer): LayerRelationship[] {
  return (layer.relationships ?? []).filter((r) => relationshipOf(layers, layer, r.id));
}

/**
 * Checks a service's layers as they would be after a change: each side names a layer of the service other than its
 * own, a relationship id joins one pair of layers only, and the two sides agree (opposite roles, one cardinality,
 * key fields of one kind).
 */
export function checkRelationships(layers: Layer[]): void {
  const byId = new Map<number, { layer: Layer; side: LayerRelationship }[]>();
  for (const layer of layers) {
    for (const side of layer.relationships ?? []) {
      const at = `Layer '${layer.name}', relationship ${side.id}`;
      if (side.relatedTableId === layer.layer_id) bad(`${at}: a layer cannot be related to itself.`);
      if (!layers.some((l) => l.layer_id === side.relatedTableId)) bad(`${at}: the service has no layer or table ${side.relatedTableId}.`);
      if (!layer.fields.some((f) => f.name === side.keyField)) bad(`${at}: key field '${side.keyField}' is not a field of the layer.`);
      byId.set(side.id, [...(byId.get(side.id) ?? []), { layer, side }]);
    }
  }
  for (const [id, sides] of byId) {
    const [a, b] = sides;
    if (sides.length > 2 || (b && (a.side.relatedTableId !== b.layer.layer_id || b.side.relatedTableId !== a.layer.layer_id)))
      bad(`Relationship ${id} is declared between more than one pair of layers; each relationship id names one pair.`);
    if (!b) continue;
    if (a.side.role === b.side.role) bad(`Relationship ${id}: one side must be esriRelRoleOrigin and the other esriRelRoleDestination.`);
    if (a.side.cardinality !== b.side.cardinality) bad(`Relationship ${id}: both sides must declare the same cardinality.`);
    if (a.side.composite !== b.side.composite) bad(`Relationship ${id}: both sides must declare the same 'composite'.`);
    const [ka, kb] = [a, b].map(({ layer, side }) => layer.fields.find((f) => f.name === side.keyField)!);
    if (KEY_KIND[ka.type] !== KEY_KIND[kb.type])
      bad(`Relationship ${id}: key fields '${ka.name}' (${ka.type}) and '${kb.name}' (${kb.type}) hold different kinds of values.`);
  }
}

/** The names of `layer`'s fields some relationship keys on: they cannot be dropped while it stands. */
export function keyFieldsOf(layer: Layer): Set<string> {
  return new Set((layer.relationships ?? []).map((r) => r.keyField));
}

/**
 * The service's working relationships as the FeatureServer/relationships resource lists them: one entry per pair,
 * from the origin's side (`originForeignKey` is the destination's key field, as ArcGIS names it).
 */
export function serviceRelationships(layers: Layer[]) {
  return layers.flatMap((layer) =>
    workingRelationships(layers, layer)
      .filter((r) => r.role === 'esriRelRoleOrigin')
      .map((r) => {
        const { other } = relationshipOf(layers, layer, r.id)!;
        return {
          id: r.id,
          name: r.name,
          originLayerId: layer.layer_id,
          destinationLayerId: r.relatedTableId,
          originPrimaryKey: r.keyField,
          originForeignKey: other.keyField,
          cardinality: r.cardinality,
          composite: r.composite,
          attributed: false,
          forwardPathLabel: r.name,
          backwardPathLabel: other.name,
          rules: [],
        };
      }),
  );
}

/** The layers and tables related to `ids` by working relationships and not among them, in id order. */
export function relatedLayerIds(ids: number[], layers: Layer[]): number[] {
  const related = new Set<number>();
  for (const layer of layers.filter((l) => ids.includes(l.layer_id)))
    for (const r of workingRelationships(layers, layer)) if (!ids.includes(r.relatedTableId)) related.add(r.relatedTableId);
  return [...related].sort((a, b) => a - b);
}

/**
 * The composite relationships that work, each as what its trigger needs (relationship-ddl.ts): deleting an origin
 * feature deletes the destination rows related to it, as ArcGIS does for composite relationships.
 */
export function cascades<L extends Layer & Pick<LayerRow, 'table_name'>>(layers: L[]) {
  return layers.flatMap((origin) =>
    workingRelationships(layers, origin)
      .filter((r) => r.role === 'esriRelRoleOrigin' && r.composite)
      .map((r) => {
        const { other, related } = relationshipOf(layers, origin, r.id)!;
        const column = (l: L, name: string) => l.fields.find((f) => f.name === name)!.column;
        return {
          id: r.id,
          origin,
          destination: related,
          originKey: column(origin, r.keyField),
          destinationKey: column(related, other.keyField),
        };
      }),
  );
}

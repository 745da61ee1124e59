/**
 * What the admin definition operations (updateDefinition, and addToDefinition and deleteFromDefinition on a layer)
 * change, worked out from the request and the layers as they are; LayersRepository.redefine writes it under the
 * service's lock. Everything here is checked before anything is written.
 */
import { Errors } from '../core/errors/arcgis-error';
import { fieldDomain } from './field-domain';
import { GEOMETRY_COLUMN, LayerField, parseField } from './layer-schema';
import { checkRelationships, keyFieldsOf, parseRelationships } from './relationships';
import { LayerRow } from './types';

export interface ServiceChange {
  capabilities?: string;
  maxRecordCount?: number;
  description?: string;
  cacheMaxAge?: number;
}

export interface LayerChange {
  /** The layer's row as it is to be stored. */
  layer: LayerRow;
  addFields?: LayerField[];
  dropFields?: LayerField[];
  /** String fields whose length grew. */
  widen?: LayerField[];
}

export interface DefinitionChange {
  service?: ServiceChange;
  layers?: LayerChange[];
  /** Layers and tables to remove, with their data. */
  deleteLayers?: number[];
}

function bad(detail: string): never {
  throw Errors.badRequest('Invalid definition.', [detail]);
}

const MAX_FIELDS = 1000;

/** The keys a layer's updateDefinition takes, and what each changes on a copy of the layer. */
const LAYER_UPDATES: Record<string, (l: LayerRow, v: unknown, c: LayerChange) => void> = {
  name: (l, v) => {
    if (typeof v !== 'string' || !v.trim() || v.trim().length > 128) bad("'name' must be 1-128 characters.");
    l.name = v.trim();
  },
  description: (l, v) => {
    if (typeof v !== 'string' || v.length > 64000) bad("'description' must be text of at most 64000 characters.");
    l.description = v;
  },
  displayField: (l, v) => {
    const f = typeof v === 'string' ? l.fields.find((x) => x.column === v.toLowerCase()) : undefined;
    if (!f) bad("'displayField' must name a field of the layer.");
    l.display_field = f.name;
  },
  fields: (l, v, c) => updateFields(l, v, c),
  relationships: (l, v) => {
    l.relationships = parseRelationships(v, l.name, l.fields);
  },
};

/** Properties that are the service's here: a layer shows the service's value. */
const SERVICE_ONLY = ['capabilities', 'maxRecordCount', 'cacheMaxAge'];

const copy = (l: LayerRow): LayerRow => ({ ...l, fields: l.fields.map((f) => ({ ...f })), relationships: [...(l.relationships ?? [])] });

function object(def: unknown, what: string): Record<string, unknown> {
  if (!def || typeof def !== 'object' || Array.isArray(def)) bad(`'${what}' must be a JSON object.`);
  return def as Record<string, unknown>;
}

/** A layer's updateDefinition: rename, describe, display field, field aliases, lengths and domains, relationships. */
export function updateLayer(layers: LayerRow[], layer: LayerRow, raw: unknown): DefinitionChange {
  const def = object(raw, 'updateDefinition');
  const l = copy(layer);
  const change: LayerChange = { layer: l };
  for (const [key, value] of Object.entries(def)) {
    if (SERVICE_ONLY.includes(key)) bad(`'${key}' is set on the service (FeatureServer/updateDefinition); its layers share it.`);
    // Own keys only: 'constructor' or 'toString' must not find Object's.
    const apply = Object.hasOwn(LAYER_UPDATES, key) ? LAYER_UPDATES[key] : undefined;
    if (!apply) bad(`Unsupported layer definition property '${key}'; supported: ${Object.keys(LAYER_UPDATES).join(', ')}.`);
    apply(l, value, change);
  }
  return withChecked(layers, { layers: [change] });
}

/** The fields an updateDefinition names, changed in place on `l`: alias, domain, editable, and a longer string length. */
function updateFields(l: LayerRow, raw: unknown, c: LayerChange): void {
  if (!Array.isArray(raw)) bad("'fields' must be an array.");
  for (const entry of raw) {
    const f = object(entry, 'fields[]');
    const field = typeof f.name === 'string' ? l.fields.find((x) => x.column === (f.name as string).toLowerCase()) : undefined;
    if (!field) bad(`Field ${JSON.stringify(f.name)} is not a field of layer '${l.name}'; add fields with addToDefinition.`);
    const at = `Field '${field.name}'`;
    if (f.type !== undefined && f.type !== field.type) bad(`${at}: its type cannot change.`);
    if (f.nullable !== undefined && f.nullable !== field.nullable) bad(`${at}: whether it takes nulls cannot change.`);
    if (f.alias !== undefined) {
      if (typeof f.alias !== 'string' || f.alias.length > 256) bad(`${at}: 'alias' must be text of at most 256 characters.`);
      field.alias = f.alias || field.name;
    }
    if (f.editable !== undefined) {
      if (typeof f.editable !== 'boolean') bad(`${at}: 'editable' must be true or false.`);
      if (f.editable && (field.type === 'esriFieldTypeOID' || field.type === 'esriFieldTypeGlobalID'))
        bad(`${at} is maintained by the server.`);
      field.editable = f.editable;
    }
    if ('domain' in f) field.domain = fieldDomain(f.domain, l.name, field);
    if (f.length !== undefined && f.length !== field.length) {
      const length = Number(f.length);
      if (field.type !== 'esriFieldTypeString') bad(`${at}: only string fields have a length.`);
      if (!Number.isInteger(length) || length < (field.length ?? 0) || length > 1_000_000)
        bad(`${at}: 'length' may only grow, up to 1000000 (it is ${field.length}).`);
      field.length = length;
      c.widen = [...(c.widen ?? []), field];
    }
  }
}

/** A layer's addToDefinition: new fields (empty for existing features) and relationships. */
export function addToLayer(layers: LayerRow[], layer: LayerRow, raw: unknown): DefinitionChange {
  const def = object(raw, 'addToDefinition');
  const l = copy(layer);
  const change: LayerChange = { layer: l };
  for (const key of Object.keys(def))
    if (key !== 'fields' && key !== 'relationships')
      bad(`Unsupported layer definition property '${key}'; supported: fields, relationships.`);
  if (def.fields !== undefined) {
    if (!Array.isArray(def.fields)) bad("'fields' must be an array.");
    const added = def.fields.map((raw) => {
      const f = parseField(raw, l.name);
      if ((raw as { domain?: unknown }).domain !== undefined) f.domain = fieldDomain((raw as { domain?: unknown }).domain, l.name, f);
      return f;
    });
    for (const f of added) {
      if (f.type === 'esriFieldTypeOID') bad(`Field '${f.name}': the layer has its object id field already.`);
      if (f.type === 'esriFieldTypeGlobalID' && l.fields.some((x) => x.type === f.type))
        bad(`Field '${f.name}': the layer has a GlobalID field already.`);
      if (f.column === GEOMETRY_COLUMN) bad(`Field '${f.name}': the name is the geometry's.`);
      if (l.fields.some((x) => x.column === f.column)) bad(`Field '${f.name}' exists already (names are case-insensitive).`);
      l.fields.push(f);
    }
    if (l.fields.length > MAX_FIELDS) bad(`Layer '${l.name}': at most ${MAX_FIELDS} fields.`);
    change.addFields = added;
  }
  if (def.relationships !== undefined) {
    const added = parseRelationships(def.relationships, l.name, l.fields);
    for (const r of added)
      if (l.relationships!.some((x) => x.id === r.id)) bad(`Relationship ${r.id} exists already on layer '${l.name}'.`);
    l.relationships!.push(...added);
  }
  return withChecked(layers, { layers: [change] });
}

/**
 * A layer's deleteFromDefinition: fields (never the object id, nor a key a relationship uses) and relationships by
 * id (both sides go, so the other layer is not left naming a relationship that no longer works).
 */
export function deleteFromLayer(layers: LayerRow[], layer: LayerRow, raw: unknown): DefinitionChange {
  const def = object(raw, 'deleteFromDefinition');
  for (const key of Object.keys(def))
    if (key !== 'fields' && key !== 'relationships')
      bad(`Unsupported layer definition property '${key}'; supported: fields, relationships.`);
  const l = copy(layer);
  const changes = new Map<number, LayerChange>([[l.layer_id, { layer: l }]]);
  if (def.relationships !== undefined) {
    const ids = names(def.relationships, 'relationships', 'id');
    for (const id of ids) {
      const side = l.relationships!.find((r) => r.id === id);
      if (!side) bad(`Layer '${l.name}' has no relationship ${String(id)}.`);
      l.relationships = l.relationships!.filter((r) => r.id !== id);
      const other = layers.find((x) => x.layer_id === side.relatedTableId);
      if (other?.relationships?.some((r) => r.id === id)) {
        const o = changes.get(other.layer_id)?.layer ?? copy(other);
        o.relationships = o.relationships!.filter((r) => r.id !== id);
        changes.set(o.layer_id, { layer: o });
      }
    }
  }
  if (def.fields !== undefined) {
    const keys = keyFieldsOf(l);
    const drop: LayerField[] = [];
    for (const name of names(def.fields, 'fields', 'name')) {
      if (typeof name === 'string' && name.toLowerCase() === GEOMETRY_COLUMN) bad('The geometry cannot be deleted.');
      const f = typeof name === 'string' ? l.fields.find((x) => x.column === name.toLowerCase()) : undefined;
      if (!f) bad(`Field ${JSON.stringify(name)} is not a field of layer '${l.name}'.`);
      if (f.type === 'esriFieldTypeOID') bad(`Field '${f.name}' is the object id field; it cannot be deleted.`);
      if (keys.has(f.name)) bad(`Field '${f.name}' is the key of a relationship; delete the relationship first.`);
      if (!drop.includes(f)) drop.push(f);
    }
    l.fields = l.fields.filter((f) => !drop.includes(f));
    if (l.display_field && drop.some((f) => f.name === l.display_field)) l.display_field = null;
    changes.get(l.layer_id)!.dropFields = drop;
  }
  return withChecked(layers, { layers: [...changes.values()] });
}

/** The service's deleteFromDefinition: the layers, and the other side of their relationships. */
export function deleteLayers(layers: LayerRow[], ids: number[]): DefinitionChange {
  const missing = ids.filter((id) => !layers.some((l) => l.layer_id === id));
  if (missing.length) throw Errors.badRequest('Layer does not exist.', [`No layer ${missing.join(', ')}.`]);
  const changes: LayerChange[] = [];
  for (const l of layers) {
    if (ids.includes(l.layer_id)) continue;
    const kept = (l.relationships ?? []).filter((r) => !ids.includes(r.relatedTableId));
    if (kept.length !== (l.relationships ?? []).length) changes.push({ layer: { ...l, relationships: kept } });
  }
  return { layers: changes, deleteLayers: ids };
}

/** The `key` member of each entry of a `{"fields":[{"name":..}]}`-style list. */
function names(raw: unknown, what: string, key: 'name' | 'id'): unknown[] {
  if (!Array.isArray(raw) || !raw.length) bad(`'${what}' must be a non-empty array of {"${key}": ...}.`);
  return raw.map((e) => (e as Record<string, unknown> | null)?.[key]);
}

/** The change, once the layers it leaves keep every relationship consistent. */
function withChecked(layers: LayerRow[], change: DefinitionChange): DefinitionChange {
  const changed = new Map((change.layers ?? []).map((c) => [c.layer.layer_id, c.layer]));
  checkRelationships(layers.map((l) => changed.get(l.layer_id) ?? l));
  return change;
}

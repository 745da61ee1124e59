/**
 * Attribute domains of a field, ArcGIS's `codedValue` and `range` (the `domain` of a field in a layer definition):
 * checked for shape against the field they describe, kept as given (only their known members, in the order given),
 * and shown in layer JSON as they were given. The one rule for a field's domain: addToDefinition uses it, and so
 * must any other route that takes field definitions.
 */
import { Errors } from '../core/errors/arcgis-error';

export interface CodedValue {
  name: string;
  code: string | number;
}

export interface CodedValueDomain {
  type: 'codedValue';
  name: string;
  description?: string;
  codedValues: CodedValue[];
  mergePolicy?: string;
  splitPolicy?: string;
}

export interface RangeDomain {
  type: 'range';
  name: string;
  description?: string;
  range: [number, number];
  mergePolicy?: string;
  splitPolicy?: string;
}

export type FieldDomain = CodedValueDomain | RangeDomain;

/** What a domain is checked against: the field it is on. */
export interface DomainField {
  name: string;
  /** An esriFieldType (layer-schema's FieldType, which imports this file). */
  type: string;
  length?: number;
}

/** Coded values per domain at most; a domain is sent with the layer JSON and every query reply. */
export const MAX_CODED_VALUES = 10_000;
/** Characters of a domain's name, and of a coded value's name (what a description column shows). */
export const MAX_DOMAIN_NAME = 255;
export const MAX_CODED_VALUE_NAME = 1000;
const MAX_DESCRIPTION = 4000;

export const MERGE_POLICIES = ['esriMPTDefaultValue', 'esriMPTSumValues', 'esriMPTAreaWeighted'] as const;
export const SPLIT_POLICIES = ['esriSPTDefaultValue', 'esriSPTDuplicate', 'esriSPTGeometryRatio'] as const;

const KEYS = {
  codedValue: ['type', 'name', 'description', 'codedValues', 'mergePolicy', 'splitPolicy'],
  range: ['type', 'name', 'description', 'range', 'mergePolicy', 'splitPolicy'],
} as const;

/** Integer ranges of the integer field types; bigints stay within what JSON numbers hold exactly. */
const INTEGER_RANGE: Record<string, [number, number] | undefined> = {
  esriFieldTypeSmallInteger: [-32768, 32767],
  esriFieldTypeInteger: [-2147483648, 2147483647],
  esriFieldTypeBigInteger: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const NUMERIC = ['esriFieldTypeSingle', 'esriFieldTypeDouble', 'esriFieldTypeDate'];

/** Whether `v` is a value the field can hold, as a domain states it (dates as epoch milliseconds). */
function fits(field: DomainField, v: unknown): boolean {
  if (field.type === 'esriFieldTypeString')
    return typeof v === 'string' && !v.includes('\0') && [...v].length <= (field.length ?? Infinity);
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  const ints = INTEGER_RANGE[field.type];
  if (ints) return Number.isInteger(v) && v >= ints[0] && v <= ints[1];
  return NUMERIC.includes(field.type);
}

const valueRule = (field: DomainField) =>
  field.type === 'esriFieldTypeString'
    ? `text of at most ${field.length ?? 256} characters`
    : INTEGER_RANGE[field.type]
      ? `whole numbers ${INTEGER_RANGE[field.type]!.join(' to ')}`
      : field.type === 'esriFieldTypeDate'
        ? 'dates as epoch milliseconds'
        : 'finite numbers';

/** Text of at most `max` characters; NUL cannot be stored (jsonb) nor written to any export. */
function text(v: unknown, max: number): v is string {
  return typeof v === 'string' && v.length <= max && !v.includes('\0');
}

/**
 * The field's domain as stored, null when there is none (absent or null). Refuses, with "Invalid layer definition."
 * and a detail naming `where` (e.g. "Layer 'Wells': ") and the field, what ArcGIS's domain JSON does not allow or
 * this service does not hold: other types (`inherited` needs subtypes), domains on OID, GlobalID and GUID fields,
 * text ranges, codes or bounds the field cannot hold, duplicate codes, unknown members.
 */
export function parseFieldDomain(raw: unknown, field: DomainField, where = ''): FieldDomain | null {
  if (raw === undefined || raw === null) return null;
  const bad = (detail: string): never => {
    throw Errors.badRequest('Invalid layer definition.', [`${where}field '${field.name}': domain ${detail}`]);
  };
  if (typeof raw !== 'object' || Array.isArray(raw)) return bad('must be a JSON object.');
  const d = raw as Record<string, unknown>;
  if (d.type !== 'codedValue' && d.type !== 'range')
    return bad(`type ${JSON.stringify(d.type)} is not supported; use "codedValue" or "range" (layers here have no subtypes).`);
  const type = d.type;
  const unknown = Object.keys(d).filter((k) => !(KEYS[type] as readonly string[]).includes(k));
  if (unknown.length) bad(`has unknown members: ${unknown.join(', ')}.`);
  if (['esriFieldTypeOID', 'esriFieldTypeGlobalID', 'esriFieldTypeGUID'].includes(field.type))
    bad(`cannot be set on a ${field.type} field.`);
  if (!text(d.name, MAX_DOMAIN_NAME) || !d.name.trim()) bad(`needs a 'name' of 1-${MAX_DOMAIN_NAME} characters.`);
  if (d.description !== undefined && !text(d.description, MAX_DESCRIPTION))
    bad(`'description' must be text of at most ${MAX_DESCRIPTION} characters.`);
  if (d.mergePolicy !== undefined && !(MERGE_POLICIES as readonly unknown[]).includes(d.mergePolicy))
    bad(`'mergePolicy' must be one of ${MERGE_POLICIES.join(', ')}.`);
  if (d.splitPolicy !== undefined && !(SPLIT_POLICIES as readonly unknown[]).includes(d.splitPolicy))
    bad(`'splitPolicy' must be one of ${SPLIT_POLICIES.join(', ')}.`);
  // The members given, in their order, with the list or range as checked: the layer JSON returns the domain as it came.
  const kept = (key: 'codedValues' | 'range', value: unknown) =>
    Object.fromEntries(Object.entries(d).map(([k, v]) => [k, k === key ? value : v]));
  if (type === 'range') {
    if (field.type === 'esriFieldTypeString') bad('of type "range" needs a numeric or date field.');
    const r = d.range;
    if (!Array.isArray(r) || r.length !== 2 || !r.every((v) => fits(field, v))) bad(`'range' must be [min, max] of ${valueRule(field)}.`);
    const [min, max] = r as [number, number];
    if (min > max) bad(`'range' minimum ${min} is above its maximum ${max}.`);
    return kept('range', [min, max]) as unknown as RangeDomain;
  }
  const list = d.codedValues;
  if (!Array.isArray(list) || !list.length || list.length > MAX_CODED_VALUES)
    bad(`'codedValues' must be an array of 1-${MAX_CODED_VALUES} {"name": ..., "code": ...}.`);
  const seen = new Set<string | number>();
  const codedValues = (list as unknown[]).map((cv, i) => {
    const c = cv as Record<string, unknown> | null;
    if (!c || typeof c !== 'object' || Array.isArray(c)) return bad(`codedValues[${i}] must be {"name": ..., "code": ...}.`);
    const extra = Object.keys(c).filter((k) => k !== 'name' && k !== 'code');
    if (extra.length) bad(`codedValues[${i}] has unknown members: ${extra.join(', ')}.`);
    if (!text(c.name, MAX_CODED_VALUE_NAME)) bad(`codedValues[${i}].name must be text of at most ${MAX_CODED_VALUE_NAME} characters.`);
    if (!fits(field, c.code)) bad(`codedValues[${i}].code must fit the field: ${valueRule(field)}.`);
    const code = c.code as string | number;
    if (seen.has(code)) bad(`codedValues[${i}].code ${JSON.stringify(code)} is listed twice.`);
    seen.add(code);
    return { name: c.name as string, code };
  });
  return kept('codedValues', codedValues) as unknown as CodedValueDomain;
}

/** The coded values of a field's domain, or null when it has none (no domain, or a range). */
export function codedValues(domain: FieldDomain | null | undefined): CodedValue[] | null {
  return domain?.type === 'codedValue' ? domain.codedValues : null;
}

/** A domain's JSON with members in one order: stored definitions come back from jsonb with their keys reordered. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * Domains are known by name across a service (queryDomains, returnDomainNames, a GeoPackage's or geodatabase's
 * domains), so one name is one definition: fields may share a domain, but not give one name two definitions.
 */
export function checkDomainNames(layers: { name: string; fields: { name: string; domain?: FieldDomain | null }[] }[]): void {
  const byName = new Map<string, { where: string; json: string }>();
  for (const l of layers) {
    for (const f of l.fields) {
      if (!f.domain) continue;
      const json = canonical(f.domain);
      const where = `layer '${l.name}', field '${f.name}'`;
      const first = byName.get(f.domain.name);
      if (first && first.json !== json)
        throw Errors.badRequest('Invalid layer definition.', [
          `Domain '${f.domain.name}' of ${where} differs from the domain of that name on ${first.where}; give it another name.`,
        ]);
      if (!first) byName.set(f.domain.name, { where, json });
    }
  }
}

/**
 * Every domain of the layers, once per name, in layer and field order, with the `fieldType` of the first field
 * using it, as ArcGIS's queryDomains lists them.
 */
export function domainsOf(layers: { fields: { type: string; domain?: FieldDomain | null }[] }[]): (FieldDomain & { fieldType: string })[] {
  const out = new Map<string, FieldDomain & { fieldType: string }>();
  for (const l of layers)
    for (const f of l.fields) {
      const d = f.domain;
      if (!d) continue;
      // ArcGIS's order: type, name, fieldType, then the rest as given.
      const { type, name, ...rest } = d;
      if (!out.has(name)) out.set(name, { type, name, fieldType: f.type, ...rest } as FieldDomain & { fieldType: string });
    }
  return [...out.values()];
}

/** A field's `domain` as an admin definition change gives it: null removes it, anything else is checked as above. */
export function fieldDomain(raw: unknown, layer: string, field: DomainField): FieldDomain | null {
  return parseFieldDomain(raw, field, `layer '${layer}', `);
}

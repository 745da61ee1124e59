import { FieldType, LayerField } from '../layers/layer-schema';

export class AttributeError extends Error {}

const INT_RANGE: Partial<Record<FieldType, [number, number]>> = {
  esriFieldTypeSmallInteger: [-32768, 32767],
  esriFieldTypeInteger: [-2147483648, 2147483647],
  esriFieldTypeOID: [1, 2147483647],
  esriFieldTypeBigInteger: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;

/**
 * Checks one attribute against its field and returns the text Postgres casts to the column type
 * (or null). Dates arrive as epoch milliseconds, as ArcGIS JSON carries them.
 */
export function toColumnText(f: LayerField, v: unknown): string | null {
  if (v === null || v === undefined) {
    if (!f.nullable) throw new AttributeError(`Field '${f.name}' cannot be null.`);
    return null;
  }
  const range = INT_RANGE[f.type];
  if (range) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range[0] || v > range[1]) {
      throw new AttributeError(`Field '${f.name}' needs a whole number from ${range[0]} to ${range[1]}.`);
    }
    return String(v);
  }
  switch (f.type) {
    case 'esriFieldTypeSingle':
    case 'esriFieldTypeDouble':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new AttributeError(`Field '${f.name}' needs a finite number.`);
      // real holds 0 or magnitudes from about 1.18e-38 to 3.4e38; Postgres refuses the rest.
      if (f.type === 'esriFieldTypeSingle' && v !== 0 && (Math.abs(v) > 3.4e38 || Math.abs(v) < 1.18e-38)) {
        throw new AttributeError(`Field '${f.name}' is out of range for a single.`);
      }
      return String(v);
    case 'esriFieldTypeString': {
      if (typeof v !== 'string') throw new AttributeError(`Field '${f.name}' needs a string.`);
      if (v.includes('\0')) throw new AttributeError(`Field '${f.name}' cannot contain NUL characters.`);
      if ([...v].length > (f.length ?? Infinity)) throw new AttributeError(`Field '${f.name}' is longer than ${f.length} characters.`);
      return v;
    }
    case 'esriFieldTypeDate': {
      const ms = typeof v === 'number' ? v : NaN;
      const d = new Date(ms);
      if (!Number.isFinite(ms) || Number.isNaN(d.getTime()))
        throw new AttributeError(`Field '${f.name}' needs a date as epoch milliseconds.`);
      if (d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999)
        throw new AttributeError(`Field '${f.name}' must be a date in the years 1 to 9999.`);
      return d.toISOString();
    }
    case 'esriFieldTypeGUID':
    case 'esriFieldTypeGlobalID': {
      const m = typeof v === 'string' ? GUID.exec(v) : null;
      if (!m) throw new AttributeError(`Field '${f.name}' needs a GUID.`);
      return m[1].toLowerCase();
    }
    default:
      throw new AttributeError(`Field '${f.name}' cannot be set.`);
  }
}

/** Resolves attribute names case-insensitively and converts them; system fields are skipped as ArcGIS does. */
export function convertAttributes(fields: LayerField[], attributes: unknown, mode: 'add' | 'update'): Record<string, string | null> {
  if (attributes !== undefined && (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))) {
    throw new AttributeError("'attributes' must be a JSON object.");
  }
  const byName = new Map(fields.map((f) => [f.column, f]));
  const out: Record<string, string | null> = {};
  for (const [name, value] of Object.entries((attributes ?? {}) as Record<string, unknown>)) {
    const f = byName.get(name.toLowerCase());
    if (!f) throw new AttributeError(`Field '${name}' does not exist in this layer.`);
    if (f.type === 'esriFieldTypeOID' || f.type === 'esriFieldTypeGlobalID') continue;
    if (!f.editable) throw new AttributeError(`Field '${f.name}' is not editable.`);
    out[f.column] = toColumnText(f, value);
  }
  if (mode === 'add') {
    for (const f of fields) {
      if (!f.nullable && f.editable && !(f.column in out)) throw new AttributeError(`Field '${f.name}' is required.`);
    }
  }
  return out;
}

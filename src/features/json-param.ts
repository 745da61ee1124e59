import { Errors } from '../core/errors/arcgis-error';

/** Parses a JSON-text parameter, naming it in the error when it is not the expected JSON. */
export function jsonParam<T = unknown>(name: string, raw: string | undefined, kind: 'object' | 'array' | 'any' = 'object'): T | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  return parseJson<T>(name, raw, kind);
}

/** Like jsonParam, for parameters that must be present. */
export function requiredJsonParam<T = unknown>(name: string, raw: string | undefined, kind: 'object' | 'array' | 'any' = 'object'): T {
  if (raw === undefined || raw.trim() === '') throw Errors.badRequest(`'${name}' is required.`);
  return parseJson<T>(name, raw, kind);
}

function parseJson<T>(name: string, raw: string, kind: 'object' | 'array' | 'any'): T {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw Errors.badRequest(`'${name}' is not valid JSON.`, [String((e as Error).message)]);
  }
  if (kind === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v)))
    throw Errors.badRequest(`'${name}' must be a JSON object.`);
  if (kind === 'array' && !Array.isArray(v)) throw Errors.badRequest(`'${name}' must be a JSON array.`);
  return v as T;
}

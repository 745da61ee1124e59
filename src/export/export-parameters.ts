import { Errors } from '../core/errors/arcgis-error';
import { SqlParams } from '../core/database/sql-params';
import { LayerRow } from '../features/features.repository';
import { normaliseWkid } from '../features/layer-schema';
import { compileWhere } from '../features/where/compile';
import { ExportFormatKey } from './export-formats';

/** A layer to export, validated; `where` is kept as the caller wrote it and compiled again by the worker. */
export interface ExportLayerParams {
  id: number;
  where: string;
  includeGeometry: boolean;
  xColumnName?: string;
  yColumnName?: string;
}

export type TargetSR = { srid: number } | { wkt: string };

/** What the job row stores; the worker needs nothing else from the request. */
export interface ExportJobParams {
  format: ExportFormatKey;
  title: string;
  serviceItemId: string;
  layers: ExportLayerParams[];
  targetSR?: TargetSR;
}

const COLUMN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function bad(detail: string): never {
  throw Errors.badRequest('Invalid export parameters.', [detail]);
}

function parse(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    bad(`'exportParameters' is not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) bad("'exportParameters' must be a JSON object.");
  return v as Record<string, unknown>;
}

/** targetSR as {wkid}, {latestWkid}, {wkt} or a wkid string (arcgis-rest-js PR #720). */
function parseTargetSR(v: unknown): TargetSR | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{1,9}$/.test(v.trim()))) return { srid: normaliseWkid(Number(v)) };
  if (typeof v === 'string') {
    try {
      return parseTargetSR(JSON.parse(v));
    } catch {
      bad('\'targetSR\' must be a wkid, {"wkid": n}, {"latestWkid": n} or {"wkt": "..."}.');
    }
  }
  const o = v as { wkid?: unknown; latestWkid?: unknown; wkt?: unknown };
  const wkid = o.latestWkid ?? o.wkid;
  if (Number.isInteger(wkid) && (wkid as number) > 0) return { srid: normaliseWkid(wkid as number) };
  if (typeof o.wkt === 'string' && o.wkt.trim() && o.wkt.length <= 20000) return { wkt: o.wkt };
  bad('\'targetSR\' must be a wkid, {"wkid": n}, {"latestWkid": n} or {"wkt": "..."}.');
}

/**
 * Validates exportParameters against the service's layers before anything is queued: unknown layers, where
 * clauses that do not compile, CSV-only options on other formats, and bad spatial references are 400s now.
 */
export function parseExportParameters(
  raw: string | undefined,
  format: ExportFormatKey,
  serviceLayers: LayerRow[],
): Omit<ExportJobParams, 'title' | 'serviceItemId' | 'format'> {
  const p = parse(raw);
  const known = new Set(['layers', 'targetSR', 'targetSr']);
  const unknown = Object.keys(p).filter((k) => !known.has(k));
  if (unknown.length) bad(`Unknown properties in 'exportParameters': ${unknown.join(', ')}.`);
  if (p.layers !== undefined && !Array.isArray(p.layers)) bad('\'layers\' must be an array of {"id": n, ...}.');
  const requested = (p.layers as unknown[] | undefined) ?? [];
  if (!serviceLayers.length) bad('The service has no layers to export.');
  // Omitted or empty layers means every layer (arcgis-rest-js PR #775).
  const list = requested.length ? requested : serviceLayers.map((l) => ({ id: l.layer_id }));
  const seen = new Set<number>();
  const layers = list.map((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) bad(`layers[${i}] must be an object.`);
    const e = entry as Record<string, unknown>;
    const extra = Object.keys(e).filter((k) => !['id', 'where', 'includeGeometry', 'xColumnName', 'yColumnName'].includes(k));
    if (extra.length) bad(`layers[${i}] has unknown properties: ${extra.join(', ')}.`);
    if (!Number.isInteger(e.id)) bad(`layers[${i}].id must be a layer id (a whole number).`);
    const layer = serviceLayers.find((l) => l.layer_id === e.id);
    if (!layer) bad(`Layer ${String(e.id)} does not exist in this service.`);
    if (seen.has(layer.layer_id)) bad(`Layer ${layer.layer_id} is listed twice.`);
    seen.add(layer.layer_id);
    if (e.where !== undefined && typeof e.where !== 'string') bad(`layers[${i}].where must be a string.`);
    const where = (e.where as string | undefined)?.trim() || '1=1';
    compileWhere(where, layer.fields, new SqlParams());
    if (e.includeGeometry !== undefined && typeof e.includeGeometry !== 'boolean')
      bad(`layers[${i}].includeGeometry must be true or false.`);
    for (const k of ['xColumnName', 'yColumnName'] as const) {
      if (e[k] === undefined) continue;
      if (format !== 'csv') bad(`layers[${i}].${k} applies only to CSV exports.`);
      if (typeof e[k] !== 'string' || !COLUMN.test(e[k] as string))
        bad(`layers[${i}].${k} must be a column name of letters, digits and '_'.`);
      if (layer.fields.some((f) => f.column === (e[k] as string).toLowerCase()))
        bad(`layers[${i}].${k} '${e[k]}' clashes with a field of the layer.`);
    }
    if (e.xColumnName !== undefined && e.xColumnName === e.yColumnName) bad(`layers[${i}]: xColumnName and yColumnName must differ.`);
    return {
      id: layer.layer_id,
      where,
      includeGeometry: (e.includeGeometry as boolean | undefined) ?? true,
      ...(e.xColumnName !== undefined ? { xColumnName: e.xColumnName as string } : {}),
      ...(e.yColumnName !== undefined ? { yColumnName: e.yColumnName as string } : {}),
    };
  });
  return { layers, targetSR: parseTargetSR(p.targetSR ?? p.targetSr) };
}

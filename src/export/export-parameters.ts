/**
 * The export parameter spec, one rule each, used by the API when a request arrives and by the worker when the job
 * runs: formats, the target spatial reference, layers with their where clause, includeGeometry and x/y column names.
 * Everything refused here is an InvalidInputError (a 400 to the caller, a permanent failure to the job).
 */
import { InvalidInputError } from '../core/errors/invalid-input';
import { ArcgisError } from '../core/errors/arcgis-error';
import { LayerRow } from '../layers/types';
import { jsonParam, requiredJsonParam } from '../core/http/param-values';
import { normaliseWkid } from '../layers/layer-schema';
import { relatedLayerIds } from '../layers/relationships';
import { parseWhereTree, renderWhereTreeSql, WhereNode } from '../where/compile';
import { ExportFormat, FORMAT_CATALOGUE } from './formats';
import { ExportTarget } from './writer';
import { xyColumnNames, XyColumnsError } from './xy-columns';
import { attributeColumns, ColumnsError, DOMAIN_VALUES, DomainValues } from './export-columns';

/** A layer to export. `whereTree` is the clause parsed once, when the request arrived; `where` is its text, for people. */
export interface ExportLayerParams {
  id: number;
  where: string;
  whereTree: WhereNode;
  includeGeometry: boolean;
  xColumnName?: string;
  yColumnName?: string;
  /** CSV and Excel: what a field with coded values writes, and whether headers are aliases (export-columns.ts). */
  useDomainDescriptions?: DomainValues;
  useFieldAliases?: boolean;
}

/** What the job row stores; the worker needs nothing else from the request. */
export interface ExportJobParams {
  format: ExportFormat;
  title: string;
  serviceItemId: string;
  /** Who asked, and whose content the result lands in: the job asks ExportAccess about both again when it runs. */
  requesterId: string;
  ownerId: string;
  layers: ExportLayerParams[];
  targetSR?: ExportTarget;
  /** CSV: text a spreadsheet would run as a formula is escaped (csvText); `exportParameters.escapeFormulas: false` turns it off. */
  escapeFormulas: boolean;
  /** `exportParameters.includeAttachments`: the exported features' attachments go with them (writer/attachments.ts). */
  includeAttachments?: boolean;
}

const INVALID = 'Invalid export parameters.';
const ID = /^[0-9a-f]{32}$/;

function bad(detail: string): never {
  throw new InvalidInputError(INVALID, [detail]);
}

/** Formats ArcGIS lists that this service cannot produce from a feature layer. */
const NOT_PRODUCIBLE = ['scene package', 'vector tile package'];

/** exportFormat is matched case-insensitively (ArcGIS's own docs use several spellings); returns the format key. */
export function resolveExportFormat(raw: string): ExportFormat {
  const wanted = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  const key = (Object.keys(FORMAT_CATALOGUE) as ExportFormat[]).find((k) => FORMAT_CATALOGUE[k].name.toLowerCase() === wanted);
  if (key) return key;
  const names = `Supported formats: ${Object.values(FORMAT_CATALOGUE)
    .map((x) => x.name)
    .join(', ')}.`;
  if (NOT_PRODUCIBLE.includes(wanted)) throw new InvalidInputError(`Export format '${raw}' cannot be produced by this service.`, [names]);
  throw new InvalidInputError(`Invalid export format '${raw.slice(0, 64)}'.`, [names]);
}

/** targetSR as {wkid}, {latestWkid}, {wkt} or a wkid string (arcgis-rest-js sends all of them). */
export function parseTargetSR(v: unknown): ExportTarget | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d{1,9}$/.test(v.trim()))) return { srid: normaliseWkid(Number(v)) };
  const shape = '\'targetSR\' must be a wkid, {"wkid": n}, {"latestWkid": n} or {"wkt": "..."}.';
  if (typeof v === 'string')
    return parseTargetSR(
      requiredJsonParam('targetSR', v, 'any', (p) => new InvalidInputError(INVALID, [p.problem === 'nul' ? p.message : shape])),
    );
  const o = v as { wkid?: unknown; latestWkid?: unknown; wkt?: unknown; srid?: unknown };
  // `srid` is the stored form, read back by the worker.
  const wkid = o.latestWkid ?? o.wkid ?? o.srid;
  if (Number.isInteger(wkid) && (wkid as number) > 0) return { srid: normaliseWkid(wkid as number) };
  if (typeof o.wkt === 'string' && o.wkt.trim() && o.wkt.length <= 20000) return { wkt: o.wkt };
  bad(shape);
}

/** One requested layer, by shape only (the service's layers are checked by checkLayers). */
function parseLayer(entry: unknown, i: number, format: ExportFormat): ExportLayerParams {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) bad(`layers[${i}] must be an object.`);
  const e = entry as Record<string, unknown>;
  const extra = Object.keys(e).filter((k) => !LAYER_KEYS.includes(k));
  if (extra.length) bad(`layers[${i}] has unknown properties: ${extra.join(', ')}.`);
  if (!Number.isInteger(e.id)) bad(`layers[${i}].id must be a layer id (a whole number).`);
  if (e.where !== undefined && typeof e.where !== 'string') bad(`layers[${i}].where must be a string.`);
  if (e.includeGeometry !== undefined && typeof e.includeGeometry !== 'boolean') bad(`layers[${i}].includeGeometry must be true or false.`);
  for (const k of ['xColumnName', 'yColumnName'] as const) {
    if (e[k] === undefined) continue;
    if (format !== 'csv') bad(`layers[${i}].${k} applies only to CSV exports.`);
    if (typeof e[k] !== 'string') bad(`layers[${i}].${k} must be a string.`);
  }
  const where = (e.where as string | undefined)?.trim() || '1=1';
  const domainValues = parseDomainValues(e.useDomainDescriptions, format, `layers[${i}].useDomainDescriptions`);
  const aliases = parseFieldAliases(e.useFieldAliases, format, `layers[${i}].useFieldAliases`);
  return {
    id: e.id as number,
    where,
    // A stored job carries the tree the API parsed; a request carries text, parsed here once.
    whereTree: e.whereTree && typeof e.whereTree === 'object' ? (e.whereTree as WhereNode) : whereTree(where, i),
    includeGeometry: (e.includeGeometry as boolean | undefined) ?? true,
    ...(e.xColumnName !== undefined ? { xColumnName: e.xColumnName as string } : {}),
    ...(e.yColumnName !== undefined ? { yColumnName: e.yColumnName as string } : {}),
    ...(domainValues !== undefined ? { useDomainDescriptions: domainValues } : {}),
    ...(aliases !== undefined ? { useFieldAliases: aliases } : {}),
  };
}

const LAYER_KEYS = [
  'id',
  'where',
  'whereTree',
  'includeGeometry',
  'xColumnName',
  'yColumnName',
  'useDomainDescriptions',
  'useFieldAliases',
];
const COLUMN_FORMATS: ExportFormat[] = ['csv', 'excel'];

/** `useDomainDescriptions`: "code", "description" or "both"; true is "description" and false "code". CSV and Excel only. */
function parseDomainValues(v: unknown, format: ExportFormat, name: string): DomainValues | undefined {
  if (v === undefined) return undefined;
  if (!COLUMN_FORMATS.includes(format)) bad(`'${name}' applies only to CSV and Excel exports.`);
  if (v === true) return 'description';
  if (v === false) return 'code';
  if (typeof v !== 'string' || !(DOMAIN_VALUES as readonly string[]).includes(v))
    bad(`'${name}' must be "code", "description", "both", true or false.`);
  return v as DomainValues;
}

/** `useFieldAliases`: true or false. CSV and Excel only. */
function parseFieldAliases(v: unknown, format: ExportFormat, name: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (!COLUMN_FORMATS.includes(format)) bad(`'${name}' applies only to CSV and Excel exports.`);
  if (typeof v !== 'boolean') bad(`'${name}' must be true or false.`);
  return v;
}

/** The where compiler speaks the query envelope; here its finding becomes a parameter problem of this layer. */
function whereTree(where: string, i: number): WhereNode {
  try {
    return parseWhereTree(where);
  } catch (e) {
    if (!(e instanceof ArcgisError)) throw e;
    return bad(`layers[${i}].where: ${e.details.join(' ') || e.message}`);
  }
}

/**
 * The layers and their options as they apply to the service's layers now: each layer exists once, its where clause
 * checks against its fields, the x/y column names fit. Returns each layer with its where clause as SQL. The API
 * runs it on the request; the worker runs it on the stored job (`'job'`), where a layer or field may be gone
 * meanwhile and the problem alone is the job's message.
 */
export function checkLayers(
  layers: ExportLayerParams[],
  format: ExportFormat,
  serviceLayers: LayerRow[],
  stage: 'request' | 'job' = 'request',
): { params: ExportLayerParams; layer: LayerRow; whereSql: string }[] {
  const fail = (detail: string): never => {
    throw stage === 'job' ? new InvalidInputError(detail) : new InvalidInputError(INVALID, [detail]);
  };
  if (!serviceLayers.length) fail('The service has no layers to export.');
  if (!layers.length) fail('Nothing to export: the request selects no layers.');
  const seen = new Set<number>();
  return layers.map((p) => {
    const layer = serviceLayers.find((l) => l.layer_id === p.id);
    if (!layer)
      return fail(stage === 'job' ? `Layer ${p.id} no longer exists in the service.` : `Layer ${p.id} does not exist in this service.`);
    if (seen.has(p.id)) fail(`Layer ${p.id} is listed twice.`);
    seen.add(p.id);
    let whereSql: string;
    try {
      whereSql = renderWhereTreeSql(p.whereTree, layer.fields);
    } catch (e) {
      if (!(e instanceof ArcgisError)) throw e;
      return fail(`Layer ${p.id} where: ${e.details.join(' ') || e.message}`);
    }
    let headers = layer.fields.map((f) => f.name);
    try {
      headers = attributeColumns(layer.fields, { domainValues: p.useDomainDescriptions, fieldAliases: p.useFieldAliases }).map(
        (c) => c.header,
      );
    } catch (e) {
      if (!(e instanceof ColumnsError)) throw e;
      fail(`Layer ${p.id}: ${e.message}`);
    }
    // The writer puts a point layer's coordinates in x/y columns for CSV and Excel: their names follow one rule.
    if (p.includeGeometry && layer.geometry_type === 'esriGeometryPoint' && FORMAT_CATALOGUE[format].geometry !== 'gdal') {
      try {
        xyColumnNames(headers, p.xColumnName, p.yColumnName);
      } catch (e) {
        if (!(e instanceof XyColumnsError)) throw e;
        fail(`Layer ${p.id}: ${e.message}`);
      }
    }
    return { params: p, layer, whereSql };
  });
}

/** The request's `exportParameters` (JSON text); omitted or empty `layers` means every layer, as ArcGIS does. */
export function parseExportRequest(
  raw: string | undefined,
  format: ExportFormat,
  serviceLayers: LayerRow[],
): Pick<ExportJobParams, 'layers' | 'targetSR' | 'escapeFormulas' | 'includeAttachments'> {
  const p =
    jsonParam<Record<string, unknown>>(
      'exportParameters',
      raw,
      'object',
      (e) => new InvalidInputError(e.message, e.reason ? [e.reason] : []),
    ) ?? {};
  const unknown = Object.keys(p).filter(
    (k) =>
      !['layers', 'targetSR', 'targetSr', 'escapeFormulas', 'includeAttachments', 'useDomainDescriptions', 'useFieldAliases'].includes(k),
  );
  if (unknown.length) bad(`Unknown properties in 'exportParameters': ${unknown.join(', ')}.`);
  if (p.layers !== undefined && !Array.isArray(p.layers)) bad('\'layers\' must be an array of {"id": n, ...}.');
  if (!serviceLayers.length) bad('The service has no layers to export.');
  const requested = (p.layers as unknown[] | undefined) ?? [];
  const list = requested.length ? requested : serviceLayers.map((l) => ({ id: l.layer_id }));
  // The options for all layers, which a layer's own override.
  const domainValues = parseDomainValues(p.useDomainDescriptions, format, 'useDomainDescriptions');
  const aliases = parseFieldAliases(p.useFieldAliases, format, 'useFieldAliases');
  const named = list.map((entry, i) => {
    if (entry && typeof entry === 'object' && 'whereTree' in entry) bad(`layers[${i}] has unknown properties: whereTree.`);
    const l = parseLayer(entry, i, format);
    return {
      ...l,
      ...(l.useDomainDescriptions === undefined && domainValues !== undefined ? { useDomainDescriptions: domainValues } : {}),
      ...(l.useFieldAliases === undefined && aliases !== undefined ? { useFieldAliases: aliases } : {}),
    };
  });
  // A layer's related tables go with it, whole, as further layers of the export (docs/api.md, related tables).
  const related = relatedLayerIds(
    named.map((l) => l.id),
    serviceLayers,
  );
  const layers = [...named, ...related.map((id) => parseLayer({ id }, named.length, format))];
  checkLayers(layers, format, serviceLayers);
  return {
    layers,
    targetSR: parseTargetSR(p.targetSR ?? p.targetSr),
    escapeFormulas: parseEscapeFormulas(p.escapeFormulas, format),
    ...(parseIncludeAttachments(p.includeAttachments, format) ? { includeAttachments: true } : {}),
  };
}

/**
 * `escapeFormulas`, on unless false: CSV only. An Excel cell's text is never run as a formula (xlsx-sheet.ts writes
 * it as a string, not a formula), so there is nothing to turn off there.
 */
function parseEscapeFormulas(v: unknown, format: ExportFormat): boolean {
  if (v === undefined) return true;
  if (format !== 'csv') bad("'escapeFormulas' applies only to CSV exports.");
  if (typeof v !== 'boolean') bad("'escapeFormulas' must be true or false.");
  return v;
}

/** `includeAttachments`, off unless true; a Feature Collection is one JSON document, with no room for files. */
function parseIncludeAttachments(v: unknown, format: ExportFormat): boolean {
  if (v === undefined || v === false) return false;
  if (typeof v !== 'boolean') bad("'includeAttachments' must be true or false.");
  if (format === 'featurecollection') bad("'includeAttachments' does not apply to Feature Collection exports.");
  return true;
}

/** The job kind's spec: what a stored (or about to be stored) export job holds, typed. */
export function exportJobParams(raw: unknown): ExportJobParams {
  if (raw === null || typeof raw !== 'object') bad('The job has no parameters.');
  const r = raw as Record<string, unknown>;
  if (typeof r.format !== 'string' || !(r.format in FORMAT_CATALOGUE)) bad(`Unknown export format '${String(r.format)}'.`);
  const format = r.format as ExportFormat;
  if (typeof r.title !== 'string') bad('The export has no title.');
  if (typeof r.serviceItemId !== 'string' || !ID.test(r.serviceItemId)) bad('The export names no service item.');
  // A job stored before these were recorded cannot be checked again, so it cannot run.
  if (typeof r.requesterId !== 'string' || !ID.test(r.requesterId)) bad('The export names no requesting user; request it again.');
  if (typeof r.ownerId !== 'string' || !ID.test(r.ownerId)) bad('The export names no receiving user; request it again.');
  if (!Array.isArray(r.layers)) bad('The export names no layers.');
  return {
    format,
    title: r.title,
    serviceItemId: r.serviceItemId,
    requesterId: r.requesterId,
    ownerId: r.ownerId,
    layers: r.layers.map((l, i) => parseLayer(l, i, format)),
    ...(r.targetSR !== undefined ? { targetSR: parseTargetSR(r.targetSR) } : {}),
    // Safe unless the request said otherwise.
    escapeFormulas: r.escapeFormulas !== false,
    ...(r.includeAttachments === true ? { includeAttachments: true } : {}),
  };
}

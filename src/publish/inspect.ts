/**
 * Step 1 of publishing: what an uploaded file holds, as layer definitions the service can create
 * (LayersRepository.addLayers) and the instructions loadLayer needs to fill them.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as gdal from 'gdal-async';
import { ArcgisError } from '../core/errors/arcgis-error';
import { LayerDefinition, normaliseWkid, parseLayerDefinition } from '../layers/layer-schema';
import { PublishError } from './errors';
import {
  assignFieldNames,
  classifyWkbType,
  ESRI_GEOMETRY,
  esriFieldType,
  flatGeometryName,
  GeometryFamily,
  listColumns,
  MAX_SOURCE_FIELDS,
  partCondition,
  partLayerName,
  pickCoordinateColumns,
  planGeometry,
  stringFieldLength,
} from './mapping';
import {
  countCsvRows,
  CsvColumns,
  csvLayerName,
  listZip,
  openCsvForInspect,
  openGeojson,
  openGeopackage,
  openShapefile,
  PublishFileType,
  readCsvHeader,
} from './source';
import { PUBLISH_FILE_TYPES } from './file-types';

export interface CsvOptions {
  /** Column holding x / longitude; with yField. When both are absent, common names are recognised (mapping.ts). */
  xField?: string;
  yField?: string;
  /** EPSG code of the coordinates; 4326 when absent. */
  srid?: number;
}

export interface InspectOptions {
  csv?: CsvOptions;
  /** Default 100. */
  maxLayers?: number;
}

/**
 * One layer to create and load. Plain JSON, so it can travel in job data between inspect and load.
 * `definition` is the output of parseLayerDefinition (OBJECTID added, names validated); the caller may change
 * its `name` or `srid` before creating the layer (loadLayer reprojects to the target column's SRID).
 */
export interface SourceLayer {
  /** GDAL layer name inside the opened source. */
  sourceName: string;
  /** Shapefile: the .shp path inside the zip. */
  member?: string;
  /** CSV: the columns holding the coordinates. */
  csv?: CsvColumns;
  definition: LayerDefinition;
  /** Source field name → target column (lower case); source fields not listed are not loaded. */
  fieldMap: { source: string; column: string }[];
  featureCount: number;
  /** Null for tables. */
  geometry: {
    /** Single geometries become multi ones (lines, polygons, multipoints). */
    promoteToMulti: boolean;
    /** Some geometries are curves and are linearised. */
    linearize: boolean;
    /** OGR SQL condition on OGR_GEOMETRY selecting this layer's features when a source layer was split by type. */
    where: string | null;
  } | null;
  /** EPSG code of the source coordinates; null when the source's SRS matches no EPSG code (loading reprojects). */
  sourceSrid: number | null;
  /** False when the file carries no SRS and `sourceSrid` is assumed (CSV srid option, or 4326). */
  sourceHasSrs: boolean;
  /** Things the user should know: renamed fields, skipped features, assumed spatial reference... */
  warnings: string[];
}

const DEFAULT_MAX_LAYERS = 100;
const FALLBACK_SRID = 4326;

/**
 * Reads the file and returns one SourceLayer per layer to create. Throws PublishError, with a message for the user,
 * for files that are empty, unreadable, of the wrong type, without usable geometry, or with too many layers.
 */
export async function inspectSource(filePath: string, type: PublishFileType, opts: InspectOptions = {}): Promise<SourceLayer[]> {
  if (!Object.hasOwn(PUBLISH_FILE_TYPES, type)) throw new PublishError(`Files of type '${type}' cannot be published.`);
  const abs = path.resolve(filePath);
  const st = await stat(abs).catch(() => null);
  if (!st?.isFile()) throw new PublishError('The uploaded file could not be found.');
  if (st.size === 0) throw new PublishError('The file is empty.');

  let layers: SourceLayer[];
  const skipped: string[] = [];
  const max = opts.maxLayers ?? DEFAULT_MAX_LAYERS;
  switch (type) {
    case 'csv':
      layers = await inspectCsv(abs, opts.csv ?? {});
      break;
    case 'geojson':
      layers = await inspectDataset(await openOr(openGeojson(abs), type), type, {}, skipped, max);
      break;
    case 'geopackage':
      layers = await inspectDataset(await openOr(openGeopackage(abs), type), type, {}, skipped, max);
      break;
    case 'shapefile':
      layers = await inspectShapefiles(abs, skipped, max);
      break;
  }
  if (!layers.length) {
    throw new PublishError(
      skipped.length ? `The file has no layer that can be published: ${skipped.join(' ')}` : 'The file contains no layers.',
    );
  }
  if (skipped.length) layers[0].warnings.push(...skipped);
  if (layers.length > max) throw tooManyLayers(layers.length, max);
  return layers;
}

const tooManyLayers = (n: number, max: number) => new PublishError(`The file has ${n} layers; at most ${max} can be published at once.`);

async function openOr(p: Promise<gdal.Dataset>, type: PublishFileType): Promise<gdal.Dataset> {
  try {
    return await p;
  } catch {
    throw new PublishError(`The file could not be read as ${PUBLISH_FILE_TYPES[type].label}.`);
  }
}

interface LayerContext {
  sourceName: string;
  member?: string;
  csv?: CsvColumns;
  /** SRID when the source has no SRS. */
  assumedSrid: number;
  /** Where string lengths come from: CSV's detected widths, a SQL scan of the data, or the declared widths. */
  lengths: 'csv' | 'sql-native' | 'sql-ogr' | 'declared';
  /** Whether an empty layer of unknown geometry type is skipped (multi-layer files) rather than an error. */
  emptyIsError: boolean;
  /** Counts the features instead of the driver (CSV). */
  countRows?: () => Promise<number>;
}

async function inspectDataset(
  ds: gdal.Dataset,
  type: PublishFileType,
  base: Partial<LayerContext>,
  skipped: string[],
  max: number,
): Promise<SourceLayer[]> {
  try {
    const n = ds.layers.count();
    if (n === 0) throw new PublishError(`The ${PUBLISH_FILE_TYPES[type].label} contains no vector layers.`);
    if (n > max) throw tooManyLayers(n, max);
    const out: SourceLayer[] = [];
    for (let i = 0; i < n; i++) {
      const layer = ds.layers.get(i);
      out.push(
        ...(await describeLayer(
          ds,
          layer,
          type,
          {
            sourceName: layer.name,
            assumedSrid: FALLBACK_SRID,
            lengths: type === 'geopackage' ? 'sql-native' : type === 'geojson' ? 'sql-ogr' : 'declared',
            emptyIsError: n === 1 && type === 'geojson',
            ...base,
          },
          skipped,
        )),
      );
    }
    return out;
  } finally {
    ds.close();
  }
}

async function inspectCsv(abs: string, csv: CsvOptions): Promise<SourceLayer[]> {
  if (csv.srid !== undefined && (!Number.isInteger(csv.srid) || csv.srid <= 0))
    throw new PublishError('The CSV spatial reference must be a positive EPSG code.');
  const header = readCsvHeader(abs);
  const cols = pickCoordinateColumns(header, csv.xField, csv.yField);
  if (!cols) {
    throw new PublishError(
      `The CSV file has no coordinate columns. Name them longitude/latitude, lon/lat, lng/lat or x/y, or choose the x and y columns. Its columns are: ${listColumns(header)}.`,
    );
  }
  const cols2 = { xField: cols.x, yField: cols.y };
  const name = csvLayerName(abs);
  const { ds, close } = await openCsvForInspect(abs, name, cols2);
  try {
    const layer = ds.layers.get(0);
    const layers = await describeLayer(
      ds,
      layer,
      'csv',
      {
        sourceName: name,
        csv: cols2,
        assumedSrid: normaliseWkid(csv.srid ?? FALLBACK_SRID),
        lengths: 'csv',
        emptyIsError: true,
        countRows: () => countCsvRows(abs),
      },
      [],
    );
    if (layers[0] && layers[0].featureCount === 0) throw new PublishError('The CSV file has no data rows.');
    if (layers[0]?.definition.kind !== 'Feature Layer') {
      throw new PublishError(`The CSV columns '${cols.x}' and '${cols.y}' could not be read as coordinates.`);
    }
    return layers;
  } finally {
    close();
  }
}

async function inspectShapefiles(abs: string, skipped: string[], max: number): Promise<SourceLayer[]> {
  const files = await listZip(abs);
  const shps = files.filter((f) => /\.shp$/i.test(f)).sort();
  if (!shps.length) throw new PublishError('The zip file contains no shapefile (.shp).');
  if (shps.length > max) throw tooManyLayers(shps.length, max);
  const lower = new Set(files.map((f) => f.toLowerCase()));
  const out: SourceLayer[] = [];
  for (const member of shps) {
    const stem = member.slice(0, -4).toLowerCase();
    for (const ext of ['shx', 'dbf']) {
      if (!lower.has(`${stem}.${ext}`))
        throw new PublishError(`The shapefile '${member}' is incomplete: its .${ext} file is missing from the zip.`);
    }
    let ds: gdal.Dataset;
    try {
      ds = await openShapefile(abs, member);
    } catch {
      throw new PublishError(`The shapefile '${member}' could not be read.`);
    }
    const layers = await inspectDataset(ds, 'shapefile', { member, emptyIsError: false }, skipped, max);
    if (!lower.has(`${stem}.prj`)) {
      for (const l of layers)
        l.warnings.push(`The shapefile '${member}' has no .prj file; its coordinates are taken to be WGS 84 (EPSG:4326).`);
    }
    out.push(...layers);
  }
  return out;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function firstRow(ds: gdal.Dataset, sql: string, dialect?: string): Promise<Record<string, unknown>> {
  const rs = await ds.executeSQLAsync(sql, undefined, dialect);
  const f = await rs.features.firstAsync();
  return f ? (f.fields.toObject() as Record<string, unknown>) : {};
}

/** Longest value of each string field, by one SQL scan (native SQLite for GeoPackage, GDAL's SQLite dialect else). */
async function measureStrings(ds: gdal.Dataset, table: string, fields: string[], native: boolean): Promise<number[]> {
  if (!fields.length) return [];
  const cols = fields.map((f, i) => `MAX(LENGTH(${q(f)})) AS m${i}`).join(', ');
  const row = await firstRow(ds, `SELECT ${cols} FROM ${q(table)}`, native ? undefined : 'SQLITE');
  return fields.map((_, i) => Number(row[`m${i}`] ?? 0) || 0);
}

/**
 * EPSG code of a source SRS's horizontal part: its own authority code, else what GDAL identifies; null when nothing
 * matches. Target columns are 2D, so a compound CRS gives its horizontal CRS (EPSG:7415 -> 28992) and a geographic
 * 3D CRS its 2D twin (EPSG:4979, which GDAL gives GeoJSON with heights -> 4326).
 */
export function sridOf(srs: gdal.SpatialReference): number | null {
  const code = (s: gdal.SpatialReference): number | null => {
    const auth = s.getAuthorityName(null);
    const c = Number(s.getAuthorityCode(null));
    if (!Number.isInteger(c) || c <= 0) return null;
    if (auth === 'EPSG') return c;
    // ESRI's web mercator codes are EPSG:3857; other ESRI codes are not in every spatial_ref_sys.
    if (auth === 'ESRI' && normaliseWkid(c) !== c) return normaliseWkid(c);
    return null;
  };
  let s = srs;
  let c: number | null = null;
  try {
    c = code(s);
  } catch {
    // no authority
  }
  if (c === null) {
    try {
      s = srs.clone();
      s.autoIdentifyEPSG();
      c = code(s);
    } catch {
      return null;
    }
  }
  return c === null ? null : horizontalSrid(s, c);
}

function horizontalSrid(s: gdal.SpatialReference, c: number): number | null {
  const node = (k: string) => {
    try {
      return Number(s.getAuthorityCode(k)) || 0;
    } catch {
      return 0;
    }
  };
  if (s.isCompound()) return node('PROJCS') || node('GEOGCS') || null;
  if (s.isGeographic() && /CS\[ellipsoidal,3\]/.test(s.toWKT())) {
    // EPSG numbers a datum's geographic 2D CRS 2000 below the datum (6326 -> 4326, 6258 -> 4258); checked below.
    const datum = node('DATUM');
    try {
      const twin = gdal.SpatialReference.fromEPSG(datum - 2000);
      if (twin.isGeographic() && datum === Number(twin.getAuthorityCode('DATUM')) && !/CS\[ellipsoidal,3\]/.test(twin.toWKT()))
        return datum - 2000;
    } catch {
      // no such code
    }
    return null;
  }
  return c;
}

/**
 * Features per geometry type, in one scan. GDAL's SQLite dialect (native SQL for GeoPackage) because OGR SQL's
 * COUNT(*) ignores a WHERE on OGR_GEOMETRY in GDAL 3.6. Names are flattened ("POINT Z" -> "POINT") to the values
 * OGR SQL's OGR_GEOMETRY takes, which loadLayer filters on.
 */
async function geometryCounts(ds: gdal.Dataset, layer: gdal.Layer): Promise<{ type: string | null; count: number }[]> {
  const geom = layer.geomColumn || 'GEOMETRY';
  const rs = await ds.executeSQLAsync(
    `SELECT ST_GeometryType(${q(geom)}) AS t, COUNT(*) AS n FROM ${q(layer.name)} GROUP BY 1`,
    undefined,
    'SQLITE',
  );
  const counts = new Map<string | null, number>();
  for (let f = await rs.features.firstAsync(); f; f = await rs.features.nextAsync()) {
    const t = f.fields.get('t');
    const name = typeof t === 'string' && t ? flatGeometryName(t) : null;
    counts.set(name, (counts.get(name) ?? 0) + Number(f.fields.get('n') ?? 0));
  }
  return [...counts].map(([type, count]) => ({ type, count }));
}

interface Part {
  family: GeometryFamily | null;
  curve: boolean;
  where: string | null;
  count: number;
  name: string;
}

async function describeLayer(
  ds: gdal.Dataset,
  layer: gdal.Layer,
  type: PublishFileType,
  ctx: LayerContext,
  skipped: string[],
): Promise<SourceLayer[]> {
  const warnings: string[] = [];
  // First async touch of the layer: for the CSV VRT this runs the type detection off the event loop (and the row
  // count, done in JS, runs meanwhile).
  const count = ctx.countRows
    ? (await Promise.all([ctx.countRows(), layer.features.firstAsync()]))[0]
    : await layer.features.countAsync(true);
  const name =
    (ctx.member
      ? ctx.member
          .split('/')
          .pop()!
          .replace(/\.shp$/i, '')
      : layer.name || ctx.sourceName
    ).slice(0, 128) || 'layer';

  // Fields
  const all = layer.fields.map((f) => ({ name: f.name, type: f.type, width: f.width }));
  const kept = all.filter((f) => {
    if (esriFieldType(f.type)) return true;
    warnings.push(`Field '${f.name}' (binary data) was left out.`);
    return false;
  });
  if (kept.length > MAX_SOURCE_FIELDS)
    throw new PublishError(`Layer '${name}' has ${kept.length} fields; at most ${MAX_SOURCE_FIELDS} can be published.`);
  const names = assignFieldNames(kept.map((f) => f.name));
  const strings = kept.filter((f) => esriFieldType(f.type) === 'esriFieldTypeString').map((f) => f.name);
  const observed = new Map<string, number>();
  if (ctx.lengths === 'sql-native' || ctx.lengths === 'sql-ogr') {
    const lengths = await measureStrings(ds, layer.name, strings, ctx.lengths === 'sql-native');
    strings.forEach((s, i) => observed.set(s, lengths[i]));
  }
  const fields = kept.map((f, i) => {
    const esri = esriFieldType(f.type)!;
    if (names[i] !== f.name) warnings.push(`Field '${f.name}' is published as '${names[i]}'.`);
    const field: Record<string, unknown> = { name: names[i], type: esri, alias: f.name.slice(0, 256) || names[i] };
    if (esri === 'esriFieldTypeString') {
      field.length =
        ctx.lengths === 'csv'
          ? stringFieldLength(0, f.width, f.name)
          : stringFieldLength(ctx.lengths === 'sql-ogr' ? 0 : f.width, observed.get(f.name) ?? null, f.name);
    }
    return field;
  });
  const fieldMap = kept.map((f, i) => ({ source: f.name, column: names[i].toLowerCase() }));
  const displayField = fields.find((f) => f.type === 'esriFieldTypeString')?.name;

  // Geometry
  const parts: Part[] = [];
  const cls = classifyWkbType(layer.geomType);
  if (cls.kind === 'none') {
    parts.push({ family: null, curve: false, where: null, count, name });
  } else if (cls.kind === 'unsupported') {
    throw new PublishError(
      `Layer '${name}' holds ${cls.name} geometries, which cannot be published; points, multipoints, lines and polygons can.`,
    );
  } else if (cls.kind === 'family') {
    parts.push({ family: cls.family, curve: cls.curve, where: null, count, name });
  } else {
    if (count === 0) {
      const msg = `Layer '${name}' has no features, so its geometry type cannot be determined.`;
      if (ctx.emptyIsError) throw new PublishError(type === 'geojson' ? 'The GeoJSON file contains no features.' : msg);
      skipped.push(msg);
      return [];
    }
    const plan = planGeometry(await geometryCounts(ds, layer));
    if (!plan.parts.length) {
      if (plan.skipped.length) {
        const kinds = plan.skipped.map((s) => s.type).join(', ');
        throw new PublishError(
          `Layer '${name}' holds only ${kinds} geometries, which cannot be published; points, multipoints, lines and polygons can.`,
        );
      }
      warnings.push(`Layer '${name}' has no geometries and is published as a table.`);
      parts.push({ family: null, curve: false, where: null, count, name });
    } else {
      for (const s of plan.skipped) warnings.push(`${s.count} feature(s) of layer '${name}' with ${s.type} geometry were left out.`);
      const split = plan.parts.length > 1;
      if (split) warnings.push(`Layer '${name}' mixes geometry types and is published as ${plan.parts.length} layers.`);
      for (const p of plan.parts) {
        parts.push({
          family: p.family,
          curve: p.curve,
          where: split || plan.skipped.length ? partCondition(p) : null,
          count: p.count,
          name: split ? partLayerName(name, p.family) : name,
        });
      }
    }
  }

  // Spatial reference
  let sourceSrid: number | null;
  let sourceHasSrs: boolean;
  const srs = layer.srs;
  if (!srs) {
    sourceSrid = ctx.assumedSrid;
    sourceHasSrs = false;
    if (type !== 'csv' && type !== 'shapefile' && parts.some((p) => p.family))
      warnings.push(`Layer '${name}' has no spatial reference; its coordinates are taken to be EPSG:${ctx.assumedSrid}.`);
  } else {
    sourceSrid = sridOf(srs);
    sourceHasSrs = true;
    if (sourceSrid === null && parts.some((p) => p.family))
      warnings.push(`The spatial reference of layer '${name}' matches no EPSG code; its features are projected to WGS 84 (EPSG:4326).`);
  }
  const srid = sourceSrid ?? FALLBACK_SRID;

  return parts.map((p) => {
    const raw = {
      name: p.name,
      ...(p.family ? { geometryType: ESRI_GEOMETRY[p.family] } : {}),
      spatialReference: { wkid: srid },
      fields,
      ...(displayField ? { displayField } : {}),
    };
    let definition: LayerDefinition;
    try {
      definition = parseLayerDefinition(raw, p.family ? 'Feature Layer' : 'Table', srid);
    } catch (e) {
      // The names and types above are built to pass; this is a bug, reported with the validator's detail.
      if (e instanceof ArcgisError) throw new Error(`Derived layer definition rejected: ${e.details.join(' ') || e.message}`);
      throw e;
    }
    return {
      sourceName: ctx.sourceName,
      ...(ctx.member ? { member: ctx.member } : {}),
      ...(ctx.csv ? { csv: ctx.csv } : {}),
      definition,
      fieldMap,
      featureCount: p.count,
      geometry: p.family ? { promoteToMulti: p.family !== 'point', linearize: p.curve, where: p.where } : null,
      sourceSrid,
      sourceHasSrs,
      warnings: [...warnings],
    };
  });
}

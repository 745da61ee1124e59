import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { FEATURE_DB } from '../core/database/feature-database.module';
import { SqlParams } from '../core/database/sql-params';
import { LayerRow } from '../layers/types';
import { featureDbError } from './query-errors';
import { layerBoxSql, layersBoxSql } from './layer-extent-sql';
import { gridEsriJson } from './pbf/grid';
import { PbfPage } from './pbf/page-columns';
import { featureRowsSql, PageFormat, pageSql, quantizedPageSql } from './query/page-sql';
import { RelatedJoin, relatedCountsSql, relatedFrom, relatedWindow } from './query/related-sql';
import { PreparedStatements } from './query/prepared-statements';
import { QuerySpec } from './query/query-spec';
import { ResumePoint, ResumePoints } from './query/resume-points';
import { AggregateQuery } from './query/statistics';
import { aggregateSql, distinctCountSql } from './query/statistics-sql';
import { dataVersionSql, tableReadSql } from '../layers/data-version';
import { FieldType, GEOMETRY_COLUMN, ident } from '../layers/layer-schema';

/** Postgres type each field's text value is cast to on write. */
const CAST: Record<FieldType, string> = {
  esriFieldTypeOID: 'integer',
  esriFieldTypeSmallInteger: 'smallint',
  esriFieldTypeInteger: 'integer',
  esriFieldTypeBigInteger: 'bigint',
  esriFieldTypeSingle: 'real',
  esriFieldTypeDouble: 'double precision',
  esriFieldTypeString: 'text',
  esriFieldTypeDate: 'timestamptz',
  esriFieldTypeGUID: 'uuid',
  esriFieldTypeGlobalID: 'uuid',
};

/** One feature to write: converted attribute texts, optional GeoJSON geometry with the srid it is in. */
export interface FeatureWrite {
  oid?: number;
  attributes: Record<string, string | null>;
  geometry?: { wkb: string; srid: number } | null;
}

const table = (schema: string, l: LayerRow) => `${ident(schema)}.${ident(l.table_name)}`;
const oidColumn = (l: LayerRow) => ident(l.fields.find((f) => f.type === 'esriFieldTypeOID')!.column);

/** A page's use of a resume point: SQL true when the point is still good (data-version.ts), and the point, if any. */
interface Resume {
  unchanged: string;
  point?: ResumePoint;
}

/** An f=pbf page's columns as the statement names them (query/page-sql.ts): `c0`, `c1`… and `nulls`. */
type PbfColumns = Record<`c${number}`, Buffer | null> & { nulls?: Buffer | null };

function pbfPage(row: PbfColumns, count: number): PbfPage {
  const columns: (Buffer | null)[] = [];
  for (let i = 0; `c${i}` in row; i++) columns.push(row[`c${i}`]);
  return { count, columns, nulls: row.nulls ?? null };
}

/** Layer data, on the feature pool (statement timeout, own connection budget; see FeatureDatabaseModule). */
@Injectable()
export class FeatureDataRepository {
  private readonly resumePoints = new ResumePoints();
  private readonly prepared = new PreparedStatements(() => (this.db.driver as PostgresDriver).master);

  constructor(
    @InjectDataSource(FEATURE_DB) private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn).catch((e) => this.fail(e, 'edit'));
  }

  /** Runs a read, mapping timeouts, data errors of the where clause and a full pool to envelopes. */
  private query<T = unknown>(sql: string, params?: unknown[], m: EntityManager | DataSource = this.db): Promise<T> {
    return m.query(sql, params).catch((e) => this.fail(e, 'query'));
  }

  /**
   * A query page's statement, prepared on its connection (query/prepared-statements.ts); tests watch this one method
   * to see what a page ran.
   */
  private pageQuery<T = unknown>(sql: string, params: unknown[]): Promise<T> {
    return this.prepared.query(sql, params).catch((e) => this.fail(e, 'query')) as Promise<T>;
  }

  private fail(e: unknown, what: 'query' | 'edit'): never {
    throw featureDbError(e, this.config.query.timeoutMs, what) ?? e;
  }

  private filter(schema: string, l: LayerRow, q: QuerySpec): string {
    const parts = [q.where];
    if (q.objectIds) parts.push(`${oidColumn(l)} = ANY(${q.p.add(q.objectIds)}::int[])`);
    if (q.envelope && l.geometry_type) {
      const e = q.envelope;
      const env = `ST_Transform(ST_MakeEnvelope(${q.p.add(e.xmin)}::float8, ${q.p.add(e.ymin)}::float8, ${q.p.add(e.xmax)}::float8, ${q.p.add(e.ymax)}::float8, ${q.p.add(e.srid)}::int), ${l.srid})`;
      parts.push(`${ident(GEOMETRY_COLUMN)} && ${env} AND ST_Intersects(${ident(GEOMETRY_COLUMN)}, ${env})`);
    }
    return `FROM ${table(schema, l)} WHERE ${parts.map((x) => `(${x})`).join(' AND ')}`;
  }

  async count(schema: string, l: LayerRow, q: QuerySpec): Promise<number> {
    const [{ n }] = await this.query<{ n: number }[]>(`SELECT count(*)::int AS n ${this.filter(schema, l, q)}`, q.p.values);
    return n;
  }

  /**
   * The matching features' count and extent in the output spatial reference: the extent is taken in the layer's own
   * reference (its index and stored boxes), and only that box is reprojected, densified so its edges follow the curve.
   */
  async countAndExtent(schema: string, l: LayerRow, q: QuerySpec): Promise<{ count: number; extent: number[] | null }> {
    if (!l.geometry_type) return { count: await this.count(schema, l, q), extent: null };
    const box = `ST_SetSRID(b::geometry, ${Math.trunc(l.srid)})`;
    // 100 steps along the longer side; a point's box has none to take.
    const step = `greatest(ST_XMax(b) - ST_XMin(b), ST_YMax(b) - ST_YMin(b), 1e-9) / 100`;
    const e = q.outSrid === l.srid ? box : `ST_Transform(ST_Segmentize(${box}, ${step}), ${q.p.add(q.outSrid)}::int)`;
    const [r] = await this.query<{ n: number; xmin: number | null; ymin: number; xmax: number; ymax: number }[]>(
      `SELECT n, ST_XMin(e) AS xmin, ST_YMin(e) AS ymin, ST_XMax(e) AS xmax, ST_YMax(e) AS ymax
         FROM (SELECT n, ${e} AS e FROM (SELECT count(*)::int AS n, ST_Extent(${ident(GEOMETRY_COLUMN)}) AS b ${this.filter(schema, l, q)}) agg) x`,
      q.p.values,
    );
    return { count: r.n, extent: r.xmin == null ? null : [r.xmin, r.ymin, r.xmax, r.ymax] };
  }

  async ids(schema: string, l: LayerRow, q: QuerySpec): Promise<number[]> {
    const oid = oidColumn(l);
    const rows = await this.query<{ id: number }[]>(`SELECT ${oid} AS id ${this.filter(schema, l, q)} ORDER BY ${oid}`, q.p.values);
    return rows.map((r) => r.id);
  }

  /** Pages run in this order: the caller's orderByFields, then the object id, so pages never overlap or skip. */
  private order(l: LayerRow, q: QuerySpec): string {
    return [
      ...q.orderBy.map((o) => `${ident(o.field.column)} ${o.desc ? 'DESC' : 'ASC'} NULLS ${o.desc ? 'FIRST' : 'LAST'}`),
      oidColumn(l),
    ].join(', ');
  }

  /**
   * The page's rows as `FROM … ORDER BY … LIMIT …`: `limit + 1` of them, so the caller can tell whether more remain.
   *
   * OFFSET reads every row it skips from the table. When the page is in object id order and the filter reads no
   * other column, the first row's id is found by skipping in the primary key's index alone (an index-only scan while
   * the visibility map is set, as a settled table has it), and the page starts there: the same rows, as the id is unique.
   */
  private window(schema: string, l: LayerRow, q: QuerySpec, guard?: string, resume?: Resume): { rows: string; order: string } {
    const filter = this.filter(schema, l, q);
    // A guard that fails makes it LIMIT 0, which reads nothing, not even the rows OFFSET would skip; in WHERE it would
    // be a filter node every skipped row passes through.
    const limit = guard ? `CASE WHEN ${guard} THEN ${q.p.add(q.limit + 1)} ELSE 0 END` : q.p.add(q.limit + 1);
    const oid = oidColumn(l);
    const dir = this.oidOrder(l, q);
    if (dir) {
      const order = `${oid} ${dir}`;
      const from = dir === 'ASC' ? '>=' : '<=';
      const skip = (start: string, offset: number) =>
        `(SELECT ${oid} ${filter}${start} ORDER BY ${order} OFFSET ${q.p.add(offset)} LIMIT 1)`;
      let first = skip('', q.offset);
      if (resume) {
        // The point is used only if no edit was committed since it was taken, as this statement's snapshot sees it;
        // each branch is an InitPlan, which runs only when the CASE takes it. Without a point the test never holds
        // (versions are never negative) and the statement's text stays the same for the prepared statement.
        const { unchanged, point } = resume;
        const resumed = skip(` AND ${oid} ${from} ${q.p.add(point?.oid ?? null)}::int`, q.offset - (point?.offset ?? 0));
        first = `CASE WHEN ${unchanged} THEN ${resumed} ELSE ${first} END`;
      }
      return { rows: `${filter} AND ${oid} ${from} ${first} ORDER BY ${order} LIMIT ${limit}`, order };
    }
    const order = this.order(l, q);
    return { rows: `${filter} ORDER BY ${order} LIMIT ${limit} OFFSET ${q.p.add(q.offset)}`, order };
  }

  /** The direction when the page is ordered by the object id alone and filtered on nothing else; else undefined. */
  private oidOrder(l: LayerRow, q: QuerySpec): 'ASC' | 'DESC' | undefined {
    const oidField = l.fields.find((f) => f.type === 'esriFieldTypeOID')!;
    if (q.envelope || !q.whereColumns || q.whereColumns.some((c) => c !== oidField.column)) return undefined;
    if (!q.orderBy.length) return 'ASC';
    const [o] = q.orderBy;
    return q.orderBy.length === 1 && o.field.column === oidField.column ? (o.desc ? 'DESC' : 'ASC') : undefined;
  }

  /**
   * One page of features as JSON text built by PostgreSQL (f=json, f=geojson): the features array's contents, and the
   * number of rows read, which is `limit + 1` when more remain. An f=pbf page comes as `pbf` instead (page-columns.ts).
   *
   * With `guard` (SQL, parameters in `q.p`), the statement checks it once before anything else and reads no row of
   * the layer unless it holds; `ok` tells which (known-layers.ts).
   *
   * With `scope` (who asks, and the layer's definition stamp), a page in object id order starts from where an earlier
   * page of the same selection ended, when no edit has been committed since (query/resume-points.ts); the row read
   * past this page is remembered as where the next one starts.
   */
  async featurePage(
    schema: string,
    l: LayerRow,
    q: QuerySpec,
    format: PageFormat,
    guard?: string,
    scope?: string,
  ): Promise<{ ok: boolean; rows: number; features: string; resumed?: boolean; pbf?: PbfPage }> {
    if (q.quantize && format === 'esri') return { ok: true, ...(await this.quantizedPage(schema, l, q)) };
    const check = guard && '(SELECT ok FROM "#guard")';
    const r = this.resumeOf(schema, l, q, scope);
    const ctes: string[] = [];
    if (guard) ctes.push(`"#guard" AS MATERIALIZED (SELECT ${guard} AS ok)`);
    // Read once, and only when the guard holds: a caller who may no longer see the layer learns nothing from it.
    if (r) ctes.push(r.cte);
    let sql = pageSql(l, q, format, this.window(schema, l, q, check, r?.resume).rows, oidColumn(l));
    if (ctes.length) {
      const ok = check ?? 'true';
      const seen = r ? `, CASE WHEN ${ok} THEN ${r.version} END AS version, CASE WHEN ${ok} THEN ${r.resume.unchanged} END AS resumed` : '';
      sql = `WITH ${ctes.join(', ')} SELECT ${ok} AS ok, page.*${seen} FROM (${sql}) page`;
    }
    const [page] = await this.pageQuery<
      ({ ok: boolean; n: number; features: string; next: number | null; version?: string | null; resumed?: boolean } & PbfColumns)[]
    >(sql, q.p.values);
    if (r && page.version != null && page.next != null)
      this.resumePoints.remember(r.key, { offset: q.offset + q.limit, oid: page.next, version: page.version });
    return {
      ok: page.ok ?? true,
      rows: page.n,
      features: page.features ?? '',
      ...(r && page.ok ? { resumed: !!page.resumed } : {}),
      ...(format === 'pbf' ? { pbf: pbfPage(page, Math.min(page.n, q.limit)) } : {}),
    };
  }

  /**
   * What a page in object id order needs to start from a resume point (query/resume-points.ts): its key, the data
   * version's CTE and the SQL reading it, and the point with the SQL that tells whether it still holds; undefined when
   * the page cannot resume (no scope, another order, a clause on the clock).
   */
  private resumeOf(schema: string, l: LayerRow, q: QuerySpec, scope?: string) {
    const dir = scope !== undefined && !q.whereReadsClock ? this.oidOrder(l, q) : undefined;
    const key = dir && this.resumeKey(scope!, schema, l, q, dir);
    if (!key) return undefined;
    const version = '(SELECT v FROM "#version")';
    const cte = `"#version" AS MATERIALIZED (${dataVersionSql(schema, l.table_name, q.p)})`;
    const point = this.resumePoints.get(key, q.offset);
    return { key, cte, version, resume: { unchanged: `${version}::bigint = ${q.p.add(point?.version ?? '-1')}::bigint`, point } };
  }

  /** Everything that decides which rows a page in object id order selects (query/resume-points.ts). */
  private resumeKey(scope: string, schema: string, l: LayerRow, q: QuerySpec, dir: string): string | undefined {
    if (q.whereParams === undefined) return undefined;
    return JSON.stringify([scope, schema, l.table_name, dir, q.where, q.p.values.slice(0, q.whereParams), q.objectIds ?? null]);
  }

  /** Statistics or distinct values (query/statistics-sql.ts): rows of the columns "#0"…"#n". */
  aggregate(schema: string, l: LayerRow, q: QuerySpec, a: AggregateQuery): Promise<Record<string, unknown>[]> {
    return this.query(aggregateSql(a, this.filter(schema, l, q), q.p, q), q.p.values);
  }

  async distinctCount(schema: string, l: LayerRow, q: QuerySpec, a: AggregateQuery): Promise<number> {
    const [{ n }] = await this.query<{ n: number }[]>(distinctCountSql(a, this.filter(schema, l, q)), q.p.values);
    return n;
  }

  /**
   * A quantized f=json page: PostgreSQL writes the attributes and snaps the shapes to the grid; the differences
   * between vertices, which SQL has no cheap way to write, are taken here, as for f=pbf.
   */
  private async quantizedPage(schema: string, l: LayerRow, q: QuerySpec): Promise<{ rows: number; features: string }> {
    const sql = quantizedPageSql(l, q, this.window(schema, l, q).rows, oidColumn(l));
    const rows = await this.pageQuery<{ f: string; g: string | null; c: string | null }[]>(sql, q.p.values);
    const type = l.geometry_type;
    const features = rows.slice(0, q.limit).map((r) => {
      let text = r.f;
      if (q.returnGeometry && type) text += `,"geometry":${JSON.stringify(gridEsriJson(type, r.g))}`;
      const centroid = r.c === null ? null : gridEsriJson('esriGeometryPoint', r.c);
      if (centroid) text += `,"centroid":${JSON.stringify(centroid)}`;
      return `${text}}`;
    });
    return { rows: rows.length, features: features.join(',') };
  }

  /** The layer's extent in its own spatial reference (layer-extent-sql.ts: cheap on large tables). */
  async extent(schema: string, l: LayerRow): Promise<number[] | null> {
    if (!l.geometry_type) return null;
    const p = new SqlParams();
    return this.box(layerBoxSql(schema, l, p), p);
  }

  /**
   * The union of the layers' extents in `outSrid` (a service's fullExtent); null when none has features, or when a
   * box cannot be reprojected (outside the output reference's area of use).
   */
  async extentIn(schema: string, layers: LayerRow[], outSrid: number): Promise<number[] | null> {
    const spatial = layers.filter((l) => l.geometry_type);
    if (!spatial.length) return null;
    const p = new SqlParams();
    try {
      return await this.box(layersBoxSql(schema, spatial, outSrid, p), p);
    } catch (e) {
      if ((e as { code?: string }).code === 'XX000' && /^transform:/.test(String((e as Error).message))) return null;
      throw e;
    }
  }

  private async box(boxSql: string, p: SqlParams): Promise<number[] | null> {
    const [r] = await this.query<{ xmin: number | null; ymin: number; xmax: number; ymax: number }[]>(
      `SELECT ST_XMin(e) AS xmin, ST_YMin(e) AS ymin, ST_XMax(e) AS xmax, ST_YMax(e) AS ymax FROM (SELECT ${boxSql} AS e) x`,
      p.values,
    );
    return r?.xmin == null ? null : [r.xmin, r.ymin, r.xmax, r.ymax];
  }

  /**
   * A page of queryRelatedRecords (query/related-sql.ts): the related features as f=json text, in the order of their
   * source features (`src`), `limit + 1` of them so the caller can tell whether more remain.
   */
  relatedPage(schema: string, source: LayerRow, target: LayerRow, join: RelatedJoin, q: QuerySpec): Promise<{ src: number; f: string }[]> {
    const window = relatedWindow(relatedFrom(schema, source, target, join, q), target, q);
    return this.query(
      `SELECT carry AS src, f FROM (${featureRowsSql(target, q, window, oidColumn(target), '"#src"')}) x ORDER BY ord`,
      q.p.values,
    );
  }

  /** queryRelatedRecords with returnCountOnly: the related rows per source feature that has any. */
  relatedCounts(
    schema: string,
    source: LayerRow,
    target: LayerRow,
    join: RelatedJoin,
    q: QuerySpec,
  ): Promise<{ oid: number; n: number }[]> {
    return this.query(relatedCountsSql(relatedFrom(schema, source, target, join, q)), q.p.values);
  }

  /** Inserts in request order with object ids taken from the sequence first, so results map back by position. */
  async insert(m: EntityManager, schema: string, l: LayerRow, features: FeatureWrite[]): Promise<number[]> {
    if (!features.length) return [];
    const oidField = l.fields.find((f) => f.type === 'esriFieldTypeOID')!;
    // Through a view layer the sequence is its source table's.
    const sequence = `pg_get_serial_sequence(${tableReadSql('$1::regclass::oid')}::regclass::text, $2)`;
    const ids: { id: number }[] = await m.query(`SELECT nextval(${sequence})::int AS id FROM generate_series(1, $3)`, [
      `${ident(schema)}.${ident(l.table_name)}`,
      oidField.column,
      features.length,
    ]);
    const docs = features.map((f, i) => ({ oid: ids[i].id, a: f.attributes, g: f.geometry?.wkb ?? null, s: f.geometry?.srid ?? null }));
    const written = l.fields.filter((f) => features.some((x) => f.column in x.attributes));
    const cols = [ident(oidField.column), ...written.map((f) => ident(f.column))];
    const vals = [`(e.doc->>'oid')::int`, ...written.map((f) => `(e.doc->'a'->>${literal(f.column)})::${CAST[f.type]}`)];
    if (l.geometry_type) {
      cols.push(ident(GEOMETRY_COLUMN));
      vals.push(geometryFromDoc(l.srid));
    }
    await m.query(
      `INSERT INTO ${table(schema, l)} (${cols.join(', ')}) SELECT ${vals.join(', ')} FROM jsonb_array_elements($1::jsonb) AS e(doc)`,
      [JSON.stringify(docs)],
    );
    return ids.map((r) => r.id);
  }

  /** Updates only the attributes (and geometry) each feature names; returns the object ids that existed. */
  async update(m: EntityManager, schema: string, l: LayerRow, features: FeatureWrite[]): Promise<Set<number>> {
    if (!features.length) return new Set();
    const docs = features.map((f) => ({
      oid: f.oid,
      a: f.attributes,
      ...(f.geometry !== undefined ? { g: f.geometry?.wkb ?? null, s: f.geometry?.srid ?? null, hasG: true } : {}),
    }));
    const written = l.fields.filter((f) => features.some((x) => f.column in x.attributes));
    const t = ident('t');
    const sets = written.map(
      (f) =>
        `${ident(f.column)} = CASE WHEN e.doc->'a' ? ${literal(f.column)} THEN (e.doc->'a'->>${literal(f.column)})::${CAST[f.type]} ELSE ${t}.${ident(f.column)} END`,
    );
    if (l.geometry_type)
      sets.push(
        `${ident(GEOMETRY_COLUMN)} = CASE WHEN e.doc ? 'hasG' THEN ${geometryFromDoc(l.srid)} ELSE ${t}.${ident(GEOMETRY_COLUMN)} END`,
      );
    if (!sets.length) sets.push(`${oidColumn(l)} = ${t}.${oidColumn(l)}`);
    const [rows]: [{ id: number }[], number] = await m.query(
      `UPDATE ${table(schema, l)} AS ${t} SET ${sets.join(', ')} FROM jsonb_array_elements($1::jsonb) AS e(doc)
        WHERE ${t}.${oidColumn(l)} = (e.doc->>'oid')::int RETURNING ${t}.${oidColumn(l)} AS id`,
      [JSON.stringify(docs)],
    );
    return new Set(rows.map((r) => r.id));
  }

  async deleteByIds(m: EntityManager, schema: string, l: LayerRow, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const [rows]: [{ id: number }[], number] = await m.query(
      `DELETE FROM ${table(schema, l)} WHERE ${oidColumn(l)} = ANY($1::int[]) RETURNING ${oidColumn(l)} AS id`,
      [ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Object ids of the features with these GlobalIDs (lower case, no braces); none when the layer has no such field. */
  async oidsByGlobalIds(schema: string, l: LayerRow, globalIds: string[]): Promise<Map<string, number>> {
    const gid = l.fields.find((f) => f.type === 'esriFieldTypeGlobalID');
    if (!gid || !globalIds.length) return new Map();
    const rows = await this.query<{ g: string; oid: number }[]>(
      `SELECT ${ident(gid.column)}::text AS g, ${oidColumn(l)} AS oid FROM ${table(schema, l)} WHERE ${ident(gid.column)} = ANY($1::uuid[])`,
      [globalIds],
    );
    return new Map(rows.map((r) => [r.g, r.oid]));
  }

  async deleteWhere(m: EntityManager, schema: string, l: LayerRow, where: string, p: SqlParams): Promise<number[]> {
    const [rows] = await this.query<[{ id: number }[], number]>(
      `DELETE FROM ${table(schema, l)} WHERE ${where} RETURNING ${oidColumn(l)} AS id`,
      p.values,
      m,
    );
    return rows.map((r) => r.id);
  }
}

/** Only for column names, which come from the validated layer definition. */
function literal(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function geometryFromDoc(srid: number): string {
  return `CASE WHEN e.doc->>'g' IS NULL THEN NULL ELSE ST_Transform(ST_GeomFromWKB(decode(e.doc->>'g', 'base64'), (e.doc->>'s')::int), ${Number(srid)}) END`;
}

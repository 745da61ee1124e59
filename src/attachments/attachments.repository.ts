import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { FEATURE_DB } from '../core/database/feature-database.module';
import { SqlParams } from '../core/database/sql-params';
import { ident } from '../layers/layer-schema';
import { whereRuntimeError } from '../where/compile';
import { LayerRow } from '../layers/types';

/** A feature_attachments row as read here. */
export interface AttachmentRow {
  id: number;
  object_id: number;
  global_id: string;
  name: string;
  content_type: string;
  size: number;
  keywords: string;
  storage_key: string;
  /** The feature's GlobalID, where the layer has that field and the reply asks for it. */
  parent_global_id?: string | null;
}

/** A new or replacing version of an attachment. */
export interface AttachmentFile {
  name: string;
  contentType: string;
  size: number;
  keywords: string;
  key: string;
}

/** Attachments and bytes held now by one feature and by its layer. */
export interface AttachmentUsage {
  featureCount: number;
  featureBytes: number;
  layerCount: number;
  layerBytes: number;
}

/** The filters of queryAttachments, already checked; `where` is SQL compiled over the layer's table `t`. */
export interface AttachmentFilter {
  objectIds?: number[];
  globalIds?: string[];
  where?: { sql: string; params: SqlParams };
  contentTypes?: string[];
  keywords?: string[];
  minSize?: number;
  maxSize?: number;
  offset: number;
  limit: number;
}

const COLUMNS = `a.id, a.object_id, a.global_id::text AS global_id, a.name, a.content_type, a.size::float8 AS size, a.keywords, a.storage_key`;
const table = (schema: string, l: LayerRow) => `${ident(schema)}.${ident(l.table_name)}`;
const oidColumn = (l: LayerRow) => ident(l.fields.find((f) => f.type === 'esriFieldTypeOID')!.column);
/** Through a view, only the attachments of the features it shows (none of a row its filter leaves out). */
const shown = (l: LayerRow, alias = '') =>
  l.attachments_through
    ? ` AND ${alias}object_id IN (SELECT ${oidColumn(l)} FROM ${ident(l.attachments_through.schema)}.${ident(l.attachments_through.table)})`
    : '';
const globalIdColumn = (l: LayerRow) => {
  const f = l.fields.find((x) => x.type === 'esriFieldTypeGlobalID');
  return f ? ident(f.column) : undefined;
};

/**
 * feature_attachments, on the feature pool: its reads join the layer tables, and the edits that delete features
 * drop their attachments in the same transaction (the EntityManager they pass).
 */
@Injectable()
export class AttachmentsRepository {
  constructor(@InjectDataSource(FEATURE_DB) private readonly db: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async featureExists(schema: string, l: LayerRow, oid: number, m: EntityManager | DataSource = this.db): Promise<boolean> {
    const rows = await m.query(`SELECT 1 FROM ${table(schema, l)} WHERE ${oidColumn(l)} = $1`, [oid]);
    return rows.length > 0;
  }

  /** What the feature and its layer hold now; with `m`, after taking the layer's row lock, so adds are counted one at a time. */
  async usage(l: LayerRow, oid: number, m?: EntityManager): Promise<AttachmentUsage> {
    if (m)
      await m.query(`SELECT 1 FROM feature_layers WHERE service_item_id = $1 AND layer_id = $2 FOR UPDATE`, [
        l.service_item_id,
        l.layer_id,
      ]);
    const [r] = await (m ?? this.db).query(
      `SELECT count(*) FILTER (WHERE object_id = $3)::int AS "featureCount",
              coalesce(sum(size) FILTER (WHERE object_id = $3), 0)::float8 AS "featureBytes",
              count(*)::int AS "layerCount", coalesce(sum(size), 0)::float8 AS "layerBytes"
         FROM feature_attachments WHERE service_item_id = $1 AND layer_id = $2`,
      [l.service_item_id, l.layer_id, oid],
    );
    return r;
  }

  async insert(
    m: EntityManager,
    l: LayerRow,
    oid: number,
    f: AttachmentFile,
    globalId?: string,
  ): Promise<{ id: number; global_id: string }> {
    const [row] = await m.query(
      `INSERT INTO feature_attachments (service_item_id, layer_id, object_id, global_id, name, content_type, size, keywords, storage_key)
       VALUES ($1, $2, $3, coalesce($4::uuid, gen_random_uuid()), $5, $6, $7, $8, $9) RETURNING id, global_id::text AS global_id`,
      [l.service_item_id, l.layer_id, oid, globalId ?? null, f.name, f.contentType, f.size, f.keywords, f.key],
    );
    return row;
  }

  async find(l: LayerRow, oid: number, id: number): Promise<AttachmentRow | null> {
    const rows: AttachmentRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM feature_attachments a WHERE a.service_item_id = $1 AND a.layer_id = $2 AND a.object_id = $3 AND a.id = $4${shown(l, 'a.')}`,
      [l.service_item_id, l.layer_id, oid, id],
    );
    return rows[0] ?? null;
  }

  listForFeature(l: LayerRow, oid: number): Promise<AttachmentRow[]> {
    return this.db.query(
      `SELECT ${COLUMNS} FROM feature_attachments a WHERE a.service_item_id = $1 AND a.layer_id = $2 AND a.object_id = $3${shown(l, 'a.')} ORDER BY a.id`,
      [l.service_item_id, l.layer_id, oid],
    );
  }

  /** Points the attachment at a new version; returns the old version's key, or null when there is no such attachment. */
  async replace(m: EntityManager, l: LayerRow, where: { oid?: number; id?: number; globalId?: string }, f: AttachmentFile) {
    const p = new SqlParams();
    const conds = [`service_item_id = ${p.add(l.service_item_id)}`, `layer_id = ${p.add(l.layer_id)}`];
    if (where.oid !== undefined) conds.push(`object_id = ${p.add(where.oid)}`);
    if (where.id !== undefined) conds.push(`id = ${p.add(where.id)}`);
    if (where.globalId !== undefined) conds.push(`global_id = ${p.add(where.globalId)}::uuid`);
    const [rows]: [{ id: number; global_id: string; old_key: string; object_id: number }[], number] = await m.query(
      `UPDATE feature_attachments a SET name = ${p.add(f.name)}, content_type = ${p.add(f.contentType)}, size = ${p.add(f.size)},
              keywords = ${p.add(f.keywords)}, storage_key = ${p.add(f.key)}, modified = now()
         FROM (SELECT id AS old_id, storage_key AS old_key FROM feature_attachments WHERE ${conds.join(' AND ')}${shown(l)} FOR UPDATE) o
        WHERE a.id = o.old_id
        RETURNING a.id, a.global_id::text AS global_id, a.object_id, o.old_key`,
      p.values,
    );
    return rows[0] ?? null;
  }

  /** Removes attachments by id (of one feature) or by global id; returns what was removed. */
  async delete(m: EntityManager, l: LayerRow, by: { oid: number; ids: number[] } | { globalIds: string[] }) {
    const [rows]: [{ id: number; global_id: string; storage_key: string }[], number] = await m.query(
      'ids' in by
        ? `DELETE FROM feature_attachments WHERE service_item_id = $1 AND layer_id = $2 AND object_id = $3 AND id = ANY($4::int[])${shown(l)}
           RETURNING id, global_id::text AS global_id, storage_key`
        : `DELETE FROM feature_attachments WHERE service_item_id = $1 AND layer_id = $2 AND global_id = ANY($3::uuid[])${shown(l)}
           RETURNING id, global_id::text AS global_id, storage_key`,
      'ids' in by ? [l.service_item_id, l.layer_id, by.oid, by.ids] : [l.service_item_id, l.layer_id, by.globalIds],
    );
    return rows;
  }

  /** Removes the attachments of deleted features; returns their keys for removal once the transaction commits. */
  async deleteForFeatures(m: EntityManager, l: LayerRow, oids: number[]): Promise<string[]> {
    if (!oids.length) return [];
    const [rows]: [{ storage_key: string }[], number] = await m.query(
      `DELETE FROM feature_attachments WHERE service_item_id = $1 AND layer_id = $2 AND object_id = ANY($3::int[]) RETURNING storage_key`,
      [l.service_item_id, l.layer_id, oids],
    );
    return rows.map((r) => r.storage_key);
  }

  /** The keys of every attachment of these layers (before the layers are deleted). */
  async keysOfLayers(serviceItemId: string, layerIds: number[]): Promise<string[]> {
    const rows: { storage_key: string }[] = await this.db.query(
      `SELECT storage_key FROM feature_attachments WHERE service_item_id = $1 AND layer_id = ANY($2::int[])`,
      [serviceItemId, layerIds],
    );
    return rows.map((r) => r.storage_key);
  }

  /** The object ids of the features with these GlobalIDs (the layer must have that field). */
  async oidsByGlobalIds(
    schema: string,
    l: LayerRow,
    globalIds: string[],
    m: EntityManager | DataSource = this.db,
  ): Promise<Map<string, number>> {
    const gid = globalIdColumn(l);
    if (!gid || !globalIds.length) return new Map();
    const rows: { g: string; oid: number }[] = await m.query(
      `SELECT ${gid}::text AS g, ${oidColumn(l)} AS oid FROM ${table(schema, l)} WHERE ${gid} = ANY($1::uuid[])`,
      [globalIds],
    );
    return new Map(rows.map((r) => [r.g, r.oid]));
  }

  /** queryAttachments: the layer's attachments whose features and files pass the filter, by feature then id. */
  query(schema: string, l: LayerRow, f: AttachmentFilter): Promise<AttachmentRow[]> {
    const p = f.where?.params ?? new SqlParams();
    const gid = globalIdColumn(l);
    const conds = [`a.service_item_id = ${p.add(l.service_item_id)}`, `a.layer_id = ${p.add(l.layer_id)}`];
    if (f.objectIds) conds.push(`a.object_id = ANY(${p.add(f.objectIds)}::int[])`);
    if (f.globalIds) conds.push(gid ? `t.${gid} = ANY(${p.add(f.globalIds)}::uuid[])` : 'false');
    if (f.where) conds.push(`(${f.where.sql})`);
    if (f.contentTypes) {
      // "image/jpeg" names one type; "image" (or "image/*") every type of that kind.
      const exact = f.contentTypes.filter((c) => c.includes('/') && !c.endsWith('/*'));
      const kinds = f.contentTypes.filter((c) => !exact.includes(c)).map((c) => c.replace(/\/\*$/, ''));
      conds.push(
        `(split_part(a.content_type, ';', 1) = ANY(${p.add(exact)}::text[]) OR split_part(a.content_type, '/', 1) = ANY(${p.add(kinds)}::text[]))`,
      );
    }
    if (f.keywords) conds.push(`string_to_array(a.keywords, ',') && ${p.add(f.keywords)}::text[]`);
    if (f.minSize !== undefined) conds.push(`a.size >= ${p.add(f.minSize)}`);
    if (f.maxSize !== undefined) conds.push(`a.size <= ${p.add(f.maxSize)}`);
    return this.db
      .query(
        `SELECT ${COLUMNS}, ${gid ? `t.${gid}::text` : 'NULL::text'} AS parent_global_id
         FROM feature_attachments a JOIN ${table(schema, l)} t ON t.${oidColumn(l)} = a.object_id
        WHERE ${conds.join(' AND ')}
        ORDER BY a.object_id, a.id OFFSET ${p.add(f.offset)} LIMIT ${p.add(f.limit)}`,
        p.values,
      )
      .catch((e: unknown) => {
        throw whereRuntimeError(e) ?? e;
      });
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ident } from '../layers/layer-schema';
import { LayerRow } from '../layers/types';

/** One attachment an export carries. */
export interface ExportedAttachment {
  id: number;
  objectId: number;
  globalId: string;
  parentGlobalId: string | null;
  name: string;
  contentType: string;
  size: number;
  key: string;
}

/**
 * The attachments of the features an export writes, for the worker (main pool: the worker has no feature pool). The
 * layer's where clause comes rendered by the export spec, over the layer's own columns, so it runs in a subquery of
 * the layer's table alone.
 */
@Injectable()
export class AttachmentExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async forLayer(schema: string, l: LayerRow, whereSql: string): Promise<ExportedAttachment[]> {
    if (!l.has_attachments) return [];
    const oid = ident(l.fields.find((f) => f.type === 'esriFieldTypeOID')!.column);
    const gidField = l.fields.find((f) => f.type === 'esriFieldTypeGlobalID');
    const table = `${ident(schema)}.${ident(l.table_name)}`;
    const parent = gidField ? `(SELECT ${ident(gidField.column)}::text FROM ${table} p WHERE p.${oid} = a.object_id)` : 'NULL::text';
    return this.db.query(
      `SELECT a.id, a.object_id AS "objectId", a.global_id::text AS "globalId", ${parent} AS "parentGlobalId", a.name,
              a.content_type AS "contentType", a.size::float8 AS size, a.storage_key AS key
         FROM feature_attachments a
        WHERE a.service_item_id = $1 AND a.layer_id = $2 AND a.object_id IN (SELECT ${oid} FROM ${table} WHERE ${whereSql})
        ORDER BY a.object_id, a.id`,
      [l.service_item_id, l.layer_id],
    );
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ContentRepository } from '../content/content.repository';
import { visibleSql } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { DEFINITION_STAMP } from './known-layers';
import { createTableSql, ident, LayerDefinition } from './layer-schema';
import { LayerRow, NewService, ServiceRow } from './types';

/** The columns of a LayerRow. */
const LAYER_COLUMNS = [
  'service_item_id',
  'layer_id',
  'name',
  'kind',
  'geometry_type',
  'srid',
  'table_name',
  'object_id_field',
  'display_field',
  'fields',
  'has_attachments',
] as const satisfies readonly (keyof LayerRow)[];

/** A layer definition the service cannot take as it is now (an id already in use); nothing of the request was written. */
export class LayerDefinitionError extends Error {
  override name = 'LayerDefinitionError';
}

/** Service and layer metadata, and the DDL that goes with it; always in one transaction with the metadata. */
@Injectable()
export class LayersRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly items: ContentRepository,
  ) {}

  async nameTaken(name: string): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM feature_services WHERE lower(name) = lower($1)`, [name])).length > 0;
  }

  async sridExists(srid: number): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM spatial_ref_sys WHERE srid = $1`, [srid])).length > 0;
  }

  /** A spatial reference's PROJ and WKT definitions, null when PostGIS does not know it. */
  async srsText(srid: number): Promise<{ proj4text: string | null; srtext: string | null } | null> {
    const rows = await this.db.query(`SELECT proj4text, srtext FROM spatial_ref_sys WHERE srid = $1`, [srid]);
    return rows[0] ?? null;
  }

  /**
   * The item, the service row and its schema. Returns false when the name was taken meanwhile. Pass the
   * EntityManager of an open transaction to commit them with other rows (publish: the job row).
   */
  async createService(s: NewService, tx?: EntityManager): Promise<boolean> {
    const write = async (m: EntityManager) => {
      const taken = await m.query(`SELECT 1 FROM feature_services WHERE lower(name) = lower($1) FOR UPDATE`, [s.name]);
      if (taken.length) return false;
      await this.items.insert(
        {
          id: s.itemId,
          ownerId: s.ownerId,
          orgId: s.orgId,
          title: s.title,
          type: 'Feature Service',
          typeKeywords: ['ArcGIS Server', 'Data', 'Feature Access', 'Feature Service', 'Service', 'Hosted Service'],
          tags: s.tags,
          description: s.description,
          url: s.url,
          size: -1,
          status: s.status ?? 'completed',
          statusMessage: s.status ?? 'completed',
        },
        m,
      );
      const schema = `svc_${s.itemId}`;
      await m.query(
        `INSERT INTO feature_services (item_id, org_id, name, schema_name, max_record_count, capabilities, spatial_reference, description)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [s.itemId, s.orgId, s.name, schema, s.maxRecordCount, s.capabilities, s.spatialReference, s.description],
      );
      await m.query(`CREATE SCHEMA ${ident(schema)}`);
      return true;
    };
    return tx ? write(tx) : this.db.transaction(write);
  }

  async findService(name: string): Promise<ServiceRow | null> {
    const rows: ServiceRow[] = await this.db.query(
      `SELECT s.*, i.owner_id, u.username AS owner, i.title
         FROM feature_services s JOIN items i ON i.id = s.item_id JOIN users u ON u.id = i.owner_id
        WHERE lower(s.name) = lower($1)`,
      [name],
    );
    return rows[0] ?? null;
  }

  /**
   * findService, whether `caller` may see the service's item (ContentRepository.findVisibleItem's rule), and the layer
   * `layerId` of it with the stamp of both rows (known-layers.ts): what a query reads before its page, in one round
   * trip instead of three. The layer is only to be used once the service is known to be visible.
   */
  async findServiceLayer(
    name: string,
    caller: Caller | undefined,
    layerId: number | undefined,
  ): Promise<{ service: ServiceRow; visible: boolean; layer: LayerRow | null; stamp: string | null } | null> {
    const p = new SqlParams();
    const byName = p.add(name);
    const layer =
      layerId === undefined
        ? `(SELECT NULL::json AS layer, NULL::text AS stamp) l`
        : `LATERAL (SELECT json_build_object(${LAYER_COLUMNS.map((c) => `'${c}', l.${c}`).join(', ')}) AS layer, ${DEFINITION_STAMP} AS stamp
             FROM feature_layers l WHERE l.service_item_id = s.item_id AND l.layer_id = ${p.add(layerId)}) l`;
    const rows: (ServiceRow & { '#visible': boolean; '#layer': LayerRow | null; '#stamp': string | null })[] = await this.db.query(
      `SELECT s.*, i.owner_id, u.username AS owner, i.title, ${visibleSql('i', caller, p)} AS "#visible",
              l.layer AS "#layer", l.stamp AS "#stamp"
         FROM feature_services s JOIN items i ON i.id = s.item_id JOIN users u ON u.id = i.owner_id LEFT JOIN ${layer} ON true
        WHERE lower(s.name) = lower(${byName})`,
      p.values,
    );
    if (!rows.length) return null;
    const { '#visible': visible, '#layer': found, '#stamp': stamp, ...service } = rows[0];
    return { service, visible, layer: found, stamp };
  }

  async findServiceByItem(itemId: string): Promise<ServiceRow | null> {
    const rows: ServiceRow[] = await this.db.query(
      `SELECT s.*, i.owner_id, u.username AS owner, i.title
         FROM feature_services s JOIN items i ON i.id = s.item_id JOIN users u ON u.id = i.owner_id
        WHERE s.item_id = $1`,
      [itemId],
    );
    return rows[0] ?? null;
  }

  layers(serviceItemId: string): Promise<LayerRow[]> {
    return this.db.query(`SELECT * FROM feature_layers WHERE service_item_id = $1 ORDER BY layer_id`, [serviceItemId]);
  }

  async layer(serviceItemId: string, layerId: number): Promise<LayerRow | null> {
    const rows: LayerRow[] = await this.db.query(`SELECT * FROM feature_layers WHERE service_item_id = $1 AND layer_id = $2`, [
      serviceItemId,
      layerId,
    ]);
    return rows[0] ?? null;
  }

  /**
   * Adds layers with the ids given (or the next free ones) and creates their tables; all or nothing, so a clash is a
   * throw, which rolls back the layers created before it (a returned value would commit them).
   */
  async addLayers(service: ServiceRow, defs: { id?: number; def: LayerDefinition }[]): Promise<{ id: number; name: string }[]> {
    return this.db.transaction(async (m) => {
      // Serialises concurrent definition changes of one service.
      await m.query(`SELECT 1 FROM feature_services WHERE item_id = $1 FOR UPDATE`, [service.item_id]);
      const existing: { layer_id: number }[] = await m.query(`SELECT layer_id FROM feature_layers WHERE service_item_id = $1`, [
        service.item_id,
      ]);
      const used = new Set(existing.map((r) => r.layer_id));
      let next = Math.max(-1, ...used) + 1;
      const added: { id: number; name: string }[] = [];
      for (const { id, def } of defs) {
        const layerId = id ?? next;
        if (used.has(layerId)) throw new LayerDefinitionError(`Layer id ${layerId} is already in use.`);
        used.add(layerId);
        next = Math.max(next, layerId + 1);
        const table = `l${layerId}`;
        await m.query(
          `INSERT INTO feature_layers (service_item_id, layer_id, name, kind, geometry_type, srid, table_name, object_id_field, display_field, fields, has_attachments)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            service.item_id,
            layerId,
            def.name,
            def.kind,
            def.geometryType,
            def.srid,
            table,
            def.objectIdField,
            def.displayField,
            JSON.stringify(def.fields),
            def.hasAttachments === true,
          ],
        );
        for (const sql of createTableSql(service.schema_name, table, def)) await m.query(sql);
        added.push({ id: layerId, name: def.name });
      }
      await this.items.touch(service.item_id, m);
      return added;
    });
  }

  /** Removes layers; their tables go through the feature_layers trigger. Returns the ids that existed. */
  async deleteLayers(serviceItemId: string, ids: number[]): Promise<number[]> {
    const [rows]: [{ layer_id: number }[], number] = await this.db.query(
      `DELETE FROM feature_layers WHERE service_item_id = $1 AND layer_id = ANY($2::int[]) RETURNING layer_id`,
      [serviceItemId, ids],
    );
    return rows.map((r) => r.layer_id);
  }
}

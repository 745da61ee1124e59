import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ContentRepository } from '../content/content.repository';
import { visibleSql } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { dataVersionOfSql } from './data-version';
import { DEFINITION_STAMP } from './known-layers';
import { DefinitionChange } from './definition-change';
import { addColumnSql, createTableSql, dropColumnSql, ident, LayerDefinition, widenColumnSql } from './layer-schema';
import { cascadeKey, CASCADE_TRIGGER, cascadeTriggerSql } from './relationship-ddl';
import { cascades, checkRelationships } from './relationships';
import { LayerRow, NewService, ServiceRow, ViewLayerRow } from './types';
import { createViewSql, ViewLayerDefinition, ViewRelation } from './view-schema';

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
  'description',
  'relationships',
  'has_attachments',
] as const satisfies readonly (keyof LayerRow)[];

/** What makes a new layer a view layer: its source, its definition as given, and its relation (view-schema.ts). */
export interface NewViewLayer {
  source: { itemId: string; layerId: number };
  definition: ViewLayerDefinition;
  relation: ViewRelation;
}

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
          typeKeywords: [
            'ArcGIS Server',
            'Data',
            'Feature Access',
            'Feature Service',
            'Service',
            'Hosted Service',
            ...(s.isView ? ['View Service'] : []),
          ],
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
        `INSERT INTO feature_services (item_id, org_id, name, schema_name, max_record_count, capabilities, spatial_reference, description, is_view, cache_max_age)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          s.itemId,
          s.orgId,
          s.name,
          schema,
          s.maxRecordCount,
          s.capabilities,
          s.spatialReference,
          s.description,
          s.isView ?? false,
          s.cacheMaxAge ?? null,
        ],
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
   *
   * With `withVersion`, also the layer's data version (data-version.ts) in the same snapshot, read only when the
   * service is visible: what a cache's validator is made of (null when the table's edits are not counted).
   */
  async findServiceLayer(
    name: string,
    caller: Caller | undefined,
    layerId: number | undefined,
    withVersion = false,
  ): Promise<{
    service: ServiceRow;
    visible: boolean;
    layer: LayerRow | null;
    stamp: string | null;
    version?: string | null;
    viewWhere?: string | null;
  } | null> {
    const p = new SqlParams();
    const byName = p.add(name);
    const visible = visibleSql('i', caller, p);
    // A view layer's clause goes with the version: rows it selects by the clock change with no edit to count.
    const version = withVersion
      ? `, CASE WHEN ${visible} THEN (SELECT v FROM (${dataVersionOfSql('s.schema_name', 'l.table_name')}) dv) END AS version,
         (SELECT vl.definition->>'viewDefinitionQuery' FROM feature_view_layers vl
           WHERE vl.service_item_id = l.service_item_id AND vl.layer_id = l.layer_id) AS view_where`
      : '';
    const layer =
      layerId === undefined
        ? `(SELECT NULL::json AS layer, NULL::text AS stamp, NULL::text AS version, NULL::text AS view_where) l`
        : `LATERAL (SELECT json_build_object(${LAYER_COLUMNS.map((c) => `'${c}', l.${c}`).join(', ')}) AS layer, ${DEFINITION_STAMP} AS stamp${version}
             FROM feature_layers l WHERE l.service_item_id = s.item_id AND l.layer_id = ${p.add(layerId)}) l`;
    type Row = ServiceRow & {
      '#visible': boolean;
      '#layer': LayerRow | null;
      '#stamp': string | null;
      '#version'?: string | null;
      '#view_where'?: string | null;
    };
    const rows: Row[] = await this.db.query(
      `SELECT s.*, i.owner_id, u.username AS owner, i.title, ${visible} AS "#visible",
              l.layer AS "#layer", l.stamp AS "#stamp"${withVersion ? ', l.version AS "#version", l.view_where AS "#view_where"' : ''}
         FROM feature_services s JOIN items i ON i.id = s.item_id JOIN users u ON u.id = i.owner_id LEFT JOIN ${layer} ON true
        WHERE lower(s.name) = lower(${byName})`,
      p.values,
    );
    if (!rows.length) return null;
    const { '#visible': isVisible, '#layer': found, '#stamp': stamp, '#version': v, '#view_where': viewWhere, ...service } = rows[0];
    return {
      service,
      visible: isVisible,
      layer: found,
      stamp,
      ...(withVersion ? { version: v ?? null, viewWhere: viewWhere ?? null } : {}),
    };
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
   * throw, which rolls back the layers created before it (a returned value would commit them). A view layer gets its
   * source in feature_view_layers (whose foreign key keeps the source layer while the view reads it) and a view for
   * its relation instead of a table.
   */
  async addLayers(
    service: ServiceRow,
    defs: { id?: number; def: LayerDefinition; view?: NewViewLayer }[],
  ): Promise<{ id: number; name: string }[]> {
    return this.db.transaction(async (m) => {
      // Serialises concurrent definition changes of one service.
      await m.query(`SELECT 1 FROM feature_services WHERE item_id = $1 FOR UPDATE`, [service.item_id]);
      // A view's sources, so that a change or delete of a source waits for this view and then sees it.
      for (const { view } of defs)
        if (view)
          await m.query(`SELECT 1 FROM feature_layers WHERE service_item_id = $1 AND layer_id = $2 FOR KEY SHARE`, [
            view.source.itemId,
            view.source.layerId,
          ]);
      const existing: { layer_id: number }[] = await m.query(`SELECT layer_id FROM feature_layers WHERE service_item_id = $1`, [
        service.item_id,
      ]);
      const used = new Set(existing.map((r) => r.layer_id));
      let next = Math.max(-1, ...used) + 1;
      const added: { id: number; name: string }[] = [];
      for (const { id, def, view } of defs) {
        const layerId = id ?? next;
        if (used.has(layerId)) throw new LayerDefinitionError(`Layer id ${layerId} is already in use.`);
        used.add(layerId);
        next = Math.max(next, layerId + 1);
        const table = `l${layerId}`;
        await m.query(
          `INSERT INTO feature_layers (service_item_id, layer_id, name, kind, geometry_type, srid, table_name, object_id_field, display_field, fields, relationships, has_attachments)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
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
            JSON.stringify(def.relationships ?? []),
            def.hasAttachments === true,
          ],
        );
        if (view) {
          await m.query(
            `INSERT INTO feature_view_layers (service_item_id, layer_id, source_item_id, source_layer_id, definition) VALUES ($1, $2, $3, $4, $5)`,
            [service.item_id, layerId, view.source.itemId, view.source.layerId, JSON.stringify(view.definition)],
          );
          await m.query(createViewSql(service.schema_name, table, view.relation));
        } else for (const sql of createTableSql(service.schema_name, table, def)) await m.query(sql);
        added.push({ id: layerId, name: def.name });
      }
      // The new layers' relationships may name each other or existing layers: checked against the whole service.
      if (defs.some((d) => d.def.relationships?.length)) {
        const after = await this.layersIn(m, service.item_id);
        checkRelationships(after);
        await this.syncCascades(m, service, [], after);
      }
      await this.items.touch(service.item_id, m);
      return added;
    });
  }

  private layersIn(m: EntityManager, serviceItemId: string): Promise<LayerRow[]> {
    return m.query(`SELECT * FROM feature_layers WHERE service_item_id = $1 ORDER BY layer_id`, [serviceItemId]);
  }

  /**
   * A change of the service's definition (definition-change.ts), worked out by `plan` from the layers as they are
   * under the service's lock and written with its DDL in one transaction: a refusal thrown by `plan` writes nothing.
   */
  async redefine<T>(service: ServiceRow, plan: (layers: LayerRow[]) => { change: DefinitionChange; result: T }): Promise<T> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT 1 FROM feature_services WHERE item_id = $1 FOR UPDATE`, [service.item_id]);
      const before = await this.layersIn(m, service.item_id);
      const { change, result } = plan(before);
      // DDL waits for readers of the table (an export's snapshot); waiting long would queue every query behind it.
      await m.query(`SET LOCAL lock_timeout = '10s'`);
      const s = change.service;
      if (s)
        await m.query(
          `UPDATE feature_services SET capabilities = coalesce($2, capabilities), max_record_count = coalesce($3, max_record_count),
             description = coalesce($4, description), cache_max_age = coalesce($5, cache_max_age), modified = now() WHERE item_id = $1`,
          [service.item_id, s.capabilities ?? null, s.maxRecordCount ?? null, s.description ?? null, s.cacheMaxAge ?? null],
        );
      if (change.deleteLayers?.length)
        await m.query(`DELETE FROM feature_layers WHERE service_item_id = $1 AND layer_id = ANY($2::int[])`, [
          service.item_id,
          change.deleteLayers,
        ]);
      for (const { layer: l, addFields, dropFields, widen } of change.layers ?? []) {
        for (const f of dropFields ?? []) await m.query(dropColumnSql(service.schema_name, l.table_name, f));
        for (const f of addFields ?? []) await m.query(addColumnSql(service.schema_name, l.table_name, f));
        for (const f of widen ?? []) await m.query(widenColumnSql(service.schema_name, l.table_name, f));
        await m.query(
          `UPDATE feature_layers SET name = $3, description = $4, display_field = $5, fields = $6, relationships = $7, modified = now()
            WHERE service_item_id = $1 AND layer_id = $2`,
          [
            service.item_id,
            l.layer_id,
            l.name,
            l.description ?? '',
            l.display_field,
            JSON.stringify(l.fields),
            JSON.stringify(l.relationships ?? []),
          ],
        );
      }
      await this.syncCascades(m, service, before, await this.layersIn(m, service.item_id));
      await this.items.touch(service.item_id, m);
      return result;
    });
  }

  /**
   * The triggers of the service's composite relationships, made again when the set changed: dropped together (a
   * deleted layer's went with its table) and created for the relationships that work now.
   */
  private async syncCascades(m: EntityManager, service: ServiceRow, before: LayerRow[], after: LayerRow[]): Promise<void> {
    // A view's relations are views: a delete through them reaches the source's tables, whose own triggers cascade.
    if (service.is_view) return;
    const [had, want] = [before, after].map((layers) => cascades(layers));
    if (JSON.stringify(had.map(cascadeKey).sort()) === JSON.stringify(want.map(cascadeKey).sort())) return;
    const existing: { tgname: string; relname: string }[] = await m.query(
      `SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND starts_with(t.tgname, $2)`,
      [service.schema_name, CASCADE_TRIGGER],
    );
    for (const t of existing) await m.query(`DROP TRIGGER ${ident(t.tgname)} ON ${ident(service.schema_name)}.${ident(t.relname)}`);
    for (const c of want) await m.query(cascadeTriggerSql(service.schema_name, c));
  }

  /** A view service's layers with their sources. */
  viewLayers(serviceItemId: string): Promise<ViewLayerRow[]> {
    return this.db.query(
      `SELECT layer_id, source_item_id, source_layer_id, definition FROM feature_view_layers WHERE service_item_id = $1 ORDER BY layer_id`,
      [serviceItemId],
    );
  }

  /**
   * The layer as attachments see it: a view layer shows its source layer's attachments (ArcGIS keeps them with the
   * source), of the features its relation shows; any other layer is itself.
   */
  async attachmentsLayer(service: ServiceRow, layer: LayerRow): Promise<LayerRow> {
    if (!service.is_view || !layer.has_attachments) return layer;
    const [src]: { source_item_id: string; source_layer_id: number }[] = await this.db.query(
      `SELECT source_item_id, source_layer_id FROM feature_view_layers WHERE service_item_id = $1 AND layer_id = $2`,
      [service.item_id, layer.layer_id],
    );
    if (!src) return layer;
    return {
      ...layer,
      service_item_id: src.source_item_id,
      layer_id: src.source_layer_id,
      attachments_through: { schema: service.schema_name, table: layer.table_name },
    };
  }

  /** The services a view reads, once each. */
  viewSources(serviceItemId: string): Promise<{ item_id: string; name: string }[]> {
    return this.db.query(
      `SELECT DISTINCT s.item_id, s.name FROM feature_view_layers v JOIN feature_services s ON s.item_id = v.source_item_id
        WHERE v.service_item_id = $1 ORDER BY s.name`,
      [serviceItemId],
    );
  }

  /** The views reading the service's layers (all of them, or `layerIds`), by name. */
  async viewsOf(sourceItemId: string, layerIds?: number[]): Promise<string[]> {
    const rows: { name: string }[] = await this.db.query(
      `SELECT DISTINCT s.name FROM feature_view_layers v JOIN feature_services s ON s.item_id = v.service_item_id
        WHERE v.source_item_id = $1 AND ($2::int[] IS NULL OR v.source_layer_id = ANY($2::int[])) ORDER BY s.name`,
      [sourceItemId, layerIds ?? null],
    );
    return rows.map((r) => r.name);
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

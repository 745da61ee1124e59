import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { ResultItems, SettledItem } from '../core/jobs/result-items';
import { SqlParams } from '../core/database/sql-params';
import { ItemEntity } from './item.entity';
import { ITEM_COLUMNS, ITEM_FROM, ItemRow, visibleSql } from './item-sql';
import { SearchNode } from './search-query';

export interface Page {
  start: number;
  num: number;
}

export interface SortSpec {
  field: 'title' | 'created' | 'modified' | 'type' | 'owner' | 'size' | 'id' | 'numViews';
  order: 'asc' | 'desc';
}

const SORT_COLUMN: Record<SortSpec['field'], string> = {
  title: 'lower(i.title)',
  created: 'i.created',
  modified: 'i.modified',
  type: 'lower(i.type)',
  owner: 'lower(u.username)',
  size: 'i.size',
  id: 'i.id',
  numViews: 'i.num_views',
};

/**
 * The owner of the items table: every other module creates, settles or deletes items through these methods, and the
 * sharing statement embeds the access update written in item-sql.ts (its single round trip is worth keeping).
 */
@Injectable()
export class ContentRepository implements ResultItems {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Inserts an item; pass the EntityManager of an open transaction to commit it with other rows (a job, a service). */
  async insert(item: Partial<ItemEntity>, m?: EntityManager): Promise<void> {
    await (m ?? this.db.manager).getRepository(ItemEntity).insert(item);
  }

  /** A job's final state on its result item, in the job row's transaction (core/jobs calls it through RESULT_ITEMS). */
  async settle(m: EntityManager, itemId: string, o: SettledItem): Promise<void> {
    await m.query(
      `UPDATE items SET status = $2, status_message = $3, size = coalesce($4, size), file_path = coalesce($5, file_path),
              name = coalesce($6, name), content_type = coalesce($7, content_type), modified = now()
        WHERE id = $1`,
      [itemId, o.status, o.message, o.file?.size ?? null, o.file?.filePath ?? null, o.file?.name ?? null, o.file?.contentType ?? null],
    );
  }

  /** Which of these item ids have a row (core's storage sweep calls it through RESULT_ITEMS). */
  async existing(ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM items WHERE id = ANY($1::text[])`, [ids]);
    return new Set(rows.map((r) => r.id));
  }

  /** One more view of the item (its data fetched), for numViews. */
  async countView(id: string): Promise<void> {
    await this.db.query(`UPDATE items SET num_views = num_views + 1 WHERE id = $1`, [id]);
  }

  /** Marks an item modified (its data changed elsewhere: a service's layers). */
  async touch(id: string, m?: EntityManager): Promise<void> {
    await (m ?? this.db).query(`UPDATE items SET modified = now() WHERE id = $1`, [id]);
  }

  async findItem(id: string): Promise<ItemRow | null> {
    const rows: ItemRow[] = await this.db.query(`SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE i.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async findVisibleItem(id: string, caller: Caller | undefined): Promise<ItemRow | null> {
    const p = new SqlParams();
    const idParam = p.add(id);
    const rows: ItemRow[] = await this.db.query(
      `SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE i.id = ${idParam} AND ${visibleSql('i', caller, p)}`,
      p.values,
    );
    return rows[0] ?? null;
  }

  async findStorage(id: string): Promise<{ file_path: string | null; data: string | null } | null> {
    const rows = await this.db.query(`SELECT file_path, data FROM items WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Deletes the item (its shares go with it) and returns where its file was, if it had one. */
  async delete(id: string): Promise<{ file_path: string | null } | null> {
    const [rows] = await this.db.query(`DELETE FROM items WHERE id = $1 RETURNING file_path`, [id]);
    return rows?.[0] ?? null;
  }

  async listOwned(ownerId: string, page: Page): Promise<{ total: number; rows: ItemRow[] }> {
    return this.page(`i.owner_id = $1`, [ownerId], page, { field: 'created', order: 'desc' });
  }

  async listGroupItems(groupId: string, caller: Caller | undefined, page: Page): Promise<{ total: number; rows: ItemRow[] }> {
    const p = new SqlParams();
    const g = p.add(groupId);
    const where = `EXISTS (SELECT 1 FROM item_shares gs WHERE gs.item_id = i.id AND gs.group_id = ${g}) AND ${visibleSql('i', caller, p)}`;
    return this.page(where, p.values, page, { field: 'title', order: 'asc' });
  }

  async search(node: SearchNode, caller: Caller | undefined, sort: SortSpec, page: Page) {
    const p = new SqlParams();
    const where = `${this.searchSql(node, p)} AND ${visibleSql('i', caller, p)}`;
    return this.page(where, p.values, page, sort);
  }

  private async page(where: string, values: unknown[], page: Page, sort: SortSpec) {
    const order = `${SORT_COLUMN[sort.field]} ${sort.order === 'desc' ? 'DESC' : 'ASC'}, i.id`;
    const n = values.length;
    const rows: (ItemRow & { total: string })[] = await this.db.query(
      `SELECT ${ITEM_COLUMNS}, count(*) OVER () AS total FROM ${ITEM_FROM} WHERE ${where}
        ORDER BY ${order} OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...values, page.start - 1, page.num],
    );
    if (rows.length || page.start === 1) return { total: rows.length ? Number(rows[0].total) : 0, rows };
    // Past the last page the window count is gone; count separately so `total` stays right.
    const [{ total }] = await this.db.query(`SELECT count(*)::int AS total FROM ${ITEM_FROM} WHERE ${where}`, values);
    return { total, rows };
  }

  private searchSql(node: SearchNode, p: SqlParams): string {
    switch (node.kind) {
      case 'and':
      case 'or':
        return `(${this.searchSql(node.left, p)} ${node.kind.toUpperCase()} ${this.searchSql(node.right, p)})`;
      case 'not':
        return `(NOT ${this.searchSql(node.node, p)})`;
      case 'term':
        return this.termSql(node.field, node.value, p);
      case 'range': {
        const col = `i.${node.field}`;
        const ends = [
          node.from === null ? null : `${col} ${node.inclusive[0] ? '>=' : '>'} to_timestamp(${p.add(node.from)}::float8 / 1000)`,
          node.to === null ? null : `${col} ${node.inclusive[1] ? '<=' : '<'} to_timestamp(${p.add(node.to)}::float8 / 1000)`,
        ].filter((e) => e !== null);
        return ends.length ? `(${ends.join(' AND ')})` : 'TRUE';
      }
    }
  }

  /** `*` is the client's wildcard; LIKE's own wildcards in the value are escaped. */
  private termSql(field: string | null, value: string, p: SqlParams): string {
    const like = (v: string) => p.add(v.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%'));
    const contains = (v: string) => p.add(`%${v.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%')}%`);
    switch (field) {
      case 'id':
        return `i.id = ${p.add(value.toLowerCase())}`;
      case 'owner':
        return `lower(u.username) LIKE lower(${like(value)})`;
      case 'orgid':
        return `i.org_id = ${p.add(value.toLowerCase())}`;
      case 'group':
        return `EXISTS (SELECT 1 FROM item_shares ss WHERE ss.item_id = i.id AND ss.group_id = ${p.add(value.toLowerCase())})`;
      case 'type':
        return `i.type ILIKE ${like(value)}`;
      case 'name':
        return `i.name ILIKE ${like(value)}`;
      case 'title':
      case 'description':
      case 'snippet':
        return `i.${field} ILIKE ${contains(value)}`;
      case 'tags':
        return `EXISTS (SELECT 1 FROM unnest(i.tags) t WHERE t ILIKE ${like(value)})`;
      case 'typekeywords':
        return `EXISTS (SELECT 1 FROM unnest(i.type_keywords) t WHERE t ILIKE ${like(value)})`;
      case 'access': {
        const v = p.add(value.toLowerCase());
        return `(CASE WHEN i.access <> 'private' THEN i.access WHEN EXISTS (SELECT 1 FROM item_shares s2 WHERE s2.item_id = i.id) THEN 'shared' ELSE 'private' END) = ${v}`;
      }
      default: {
        const v = contains(value);
        return `(i.title ILIKE ${v} OR i.snippet ILIKE ${v} OR i.description ILIKE ${v} OR EXISTS (SELECT 1 FROM unnest(i.tags) t WHERE t ILIKE ${v}))`;
      }
    }
  }
}

import { Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { ListingDatabase } from '../core/database/request-pools.module';
import { SqlParams } from '../core/database/sql-params';
import { anyOfPattern, likePattern, orBranches, rangeSql } from '../core/search/search-sql';
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
 * Searches and content listings: statements whose cost the request chooses, so they run on the listing pool (a
 * statement timeout, per-client shares; see core/database/request-pools.module.ts), never on the main pool.
 */
@Injectable()
export class ItemListRepository {
  constructor(private readonly db: ListingDatabase) {}

  /** The owner's items in one folder (null: the root), as ArcGIS lists a folder. */
  async listOwned(ownerId: string, page: Page, folderId: string | null = null): Promise<{ total: number; rows: ItemRow[] }> {
    const where = folderId === null ? `i.owner_id = $1 AND i.owner_folder IS NULL` : `i.owner_id = $1 AND i.owner_folder = $2`;
    return this.page(where, folderId === null ? [ownerId] : [ownerId, folderId], page, { field: 'created', order: 'desc' });
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

  /** The owner's items (every folder) that match `node`, if any: My content's page, whatever the sharing. */
  async searchOwned(ownerId: string, node: SearchNode | undefined, sort: SortSpec, page: Page) {
    const p = new SqlParams();
    const owner = `i.owner_id = ${p.add(ownerId)}`;
    return this.page(node ? `${owner} AND ${this.searchSql(node, p)}` : owner, p.values, page, sort);
  }

  /** The item types the owner has, for My content's type filter. */
  async ownerTypes(ownerId: string): Promise<string[]> {
    const rows = await this.db.query<{ type: string }>(`SELECT DISTINCT type FROM items WHERE owner_id = $1 ORDER BY type`, [ownerId]);
    return rows.map((r) => r.type);
  }

  /** The tags of the user's items with how many items carry each, most used first (getUserTags). */
  async ownerTags(ownerId: string): Promise<{ tag: string; count: number }[]> {
    return this.db.query(
      `SELECT t AS tag, count(*)::int AS count FROM items i CROSS JOIN LATERAL unnest(i.tags) AS t
        WHERE i.owner_id = $1 GROUP BY t ORDER BY count(*) DESC, t`,
      [ownerId],
    );
  }

  private async page(where: string, values: unknown[], page: Page, sort: SortSpec) {
    const order = `${SORT_COLUMN[sort.field]} ${sort.order === 'desc' ? 'DESC' : 'ASC'}, i.id`;
    const n = values.length;
    const rows: (ItemRow & { total: string })[] = await this.db.query<ItemRow & { total: string }>(
      `SELECT ${ITEM_COLUMNS}, count(*) OVER () AS total FROM ${ITEM_FROM} WHERE ${where}
        ORDER BY ${order} OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...values, page.start - 1, page.num],
    );
    if (rows.length || page.start === 1) return { total: rows.length ? Number(rows[0].total) : 0, rows };
    // Past the last page the window count is gone; count separately so `total` stays right.
    const [{ total }] = await this.db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${ITEM_FROM} WHERE ${where}`, values);
    return { total, rows };
  }

  private searchSql(node: SearchNode, p: SqlParams): string {
    switch (node.kind) {
      case 'and':
        return `(${this.searchSql(node.left, p)} AND ${this.searchSql(node.right, p)})`;
      case 'or':
        return this.anySql(orBranches(node), p);
      case 'not':
        return `(NOT ${this.searchSql(node.node, p)})`;
      case 'term':
        return this.termSql(node.field, node.value, p);
      case 'range':
        return rangeSql(`i.${node.field}`, node, p);
    }
  }

  /**
   * OR'd branches, with the free-text terms of each field merged into one regular expression: the text is then read
   * once per field, however many terms the client ORs, where one pattern per term read it once per term.
   */
  private anySql(branches: SearchNode[], p: SqlParams): string {
    const text = new Map<TextField, string[]>();
    const rest: string[] = [];
    for (const b of branches) {
      if (b.kind === 'term' && isTextField(b.field)) text.set(b.field ?? '', [...(text.get(b.field ?? '') ?? []), b.value]);
      else rest.push(this.searchSql(b, p));
    }
    for (const [field, values] of text) rest.push(containsSql(field, values, p));
    return `(${rest.join(' OR ')})`;
  }

  private termSql(field: string | null, value: string, p: SqlParams): string {
    if (isTextField(field)) return containsSql(field ?? '', [value], p);
    const like = (v: string) => p.add(likePattern(v));
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
      case 'tags':
        return `EXISTS (SELECT 1 FROM unnest(i.tags) t WHERE t ILIKE ${like(value)})`;
      case 'typekeywords':
        return `EXISTS (SELECT 1 FROM unnest(i.type_keywords) t WHERE t ILIKE ${like(value)})`;
      case 'access': {
        const v = p.add(value.toLowerCase());
        return `(CASE WHEN i.access <> 'private' THEN i.access WHEN EXISTS (SELECT 1 FROM item_shares s2 WHERE s2.item_id = i.id) THEN 'shared' ELSE 'private' END) = ${v}`;
      }
      default:
        throw new Error(`No SQL for search field ${field}`);
    }
  }
}

/** Fields whose terms match anywhere in the text (`''` is a term without a field: title, snippet, description, tags). */
type TextField = '' | 'title' | 'description' | 'snippet';
const isTextField = (field: string | null): field is Exclude<TextField, ''> | null =>
  field === null || field === 'title' || field === 'description' || field === 'snippet';

/** Each column is matched through its trigram index (migration ItemTextSearch); tags are one text, a newline between. */
const TEXT_COLUMNS: Record<TextField, string[]> = {
  '': ['i.title', 'i.snippet', 'i.description', 'items_tags_text(i.tags)'],
  title: ['i.title'],
  description: ['i.description'],
  snippet: ['i.snippet'],
};

/** Any of `values` anywhere in the field, case-insensitively (anyOfPattern). */
function containsSql(field: TextField, values: string[], p: SqlParams): string {
  const re = p.add(anyOfPattern(values));
  const cols = TEXT_COLUMNS[field];
  return cols.length === 1 ? `${cols[0]} ~* ${re}` : `(${cols.map((c) => `${c} ~* ${re}`).join(' OR ')})`;
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ItemFileKind, ResourceAccess } from './item-file.entity';

export interface ItemFileRow {
  path: string;
  key: string;
  size: string;
  access: ResourceAccess;
  created: Date;
  modified: Date;
}

export interface NewItemFile {
  itemId: string;
  kind: ItemFileKind;
  path: string;
  key: string;
  size: number;
  access?: ResourceAccess;
}

/** added, or why not: a file of that path exists, the item holds its maximum, the item is gone. */
export type AddOutcome = 'added' | 'exists' | 'full' | 'gone';

const SORT_COLUMN = { resource: 'path', created: 'created', size: 'size' } as const;

/** The item_files table's one writer: an item's info files and resources, each row naming its object's key. */
@Injectable()
export class ItemFilesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(itemId: string, kind: ItemFileKind, path: string): Promise<ItemFileRow | null> {
    const rows: ItemFileRow[] = await this.db.query(
      `SELECT path, key, size, access, created, modified FROM item_files WHERE item_id = $1 AND kind = $2 AND path = $3`,
      [itemId, kind, path],
    );
    return rows[0] ?? null;
  }

  /** A page of the item's files of one kind, with the total; private ones only when `withPrivate`. */
  async list(
    itemId: string,
    kind: ItemFileKind,
    page: { start: number; num: number; sortField: keyof typeof SORT_COLUMN; sortOrder: 'asc' | 'desc' },
    withPrivate: boolean,
  ): Promise<{ total: number; rows: ItemFileRow[] }> {
    const where = `item_id = $1 AND kind = $2${withPrivate ? '' : ` AND access = 'inherit'`}`;
    const order = `${SORT_COLUMN[page.sortField]} ${page.sortOrder === 'desc' ? 'DESC' : 'ASC'}, path`;
    const [{ total }]: { total: number }[] = await this.db.query(`SELECT count(*)::int AS total FROM item_files WHERE ${where}`, [
      itemId,
      kind,
    ]);
    if (page.num === 0 || page.start > total) return { total, rows: [] };
    const rows: ItemFileRow[] = await this.db.query(
      `SELECT path, key, size, access, created, modified FROM item_files WHERE ${where} ORDER BY ${order} OFFSET $3 LIMIT $4`,
      [itemId, kind, page.start - 1, page.num],
    );
    return { total, rows };
  }

  /**
   * Adds a file unless one of that path exists or the item already holds `max` of this kind. The item's row is locked
   * first, so concurrent adds to one item are counted one after another and cannot together pass `max`.
   */
  async add(f: NewItemFile, max: number): Promise<AddOutcome> {
    return this.db.transaction(async (m) => {
      const locked: unknown[] = await m.query(`SELECT 1 FROM items WHERE id = $1 FOR NO KEY UPDATE`, [f.itemId]);
      if (!locked.length) return 'gone';
      const [state]: { n: number; taken: boolean }[] = await m.query(
        `SELECT count(*)::int AS n, bool_or(path = $3) IS TRUE AS taken FROM item_files WHERE item_id = $1 AND kind = $2`,
        [f.itemId, f.kind, f.path],
      );
      if (state.taken) return 'exists';
      if (state.n >= max) return 'full';
      await m.query(`INSERT INTO item_files (item_id, kind, path, key, size, access) VALUES ($1, $2, $3, $4, $5, $6)`, [
        f.itemId,
        f.kind,
        f.path,
        f.key,
        f.size,
        f.access ?? 'inherit',
      ]);
      return 'added';
    });
  }

  /**
   * Points an existing file at a new object (and access, when given); returns the key it replaced, or null when there
   * is no such file (nothing changed).
   */
  async replace(f: NewItemFile): Promise<string | null> {
    // TypeORM answers an UPDATE with [rows, count].
    const [rows]: [{ old_key: string }[], number] = await this.db.query(
      `UPDATE item_files n SET key = $4, size = $5, access = coalesce($6, n.access), modified = now()
         FROM (SELECT key FROM item_files WHERE item_id = $1 AND kind = $2 AND path = $3 FOR UPDATE) o
        WHERE n.item_id = $1 AND n.kind = $2 AND n.path = $3
        RETURNING o.key AS old_key`,
      [f.itemId, f.kind, f.path, f.key, f.size, f.access ?? null],
    );
    return rows[0]?.old_key ?? null;
  }

  /**
   * Adds or replaces a file, the item holding at most `max` of its kind; returns the key it replaced (null: none), or
   * why nothing was written. Replace first, else add: two writers of one new path end with one row whose replaced
   * key the other is told of, so no object is left without a row.
   */
  async put(f: NewItemFile, max: number): Promise<{ replaced: string | null } | { refused: 'full' | 'gone' }> {
    for (let attempt = 0; ; attempt++) {
      const old = await this.replace(f);
      if (old !== null) return { replaced: old };
      const outcome = await this.add(f, max);
      if (outcome === 'full' || outcome === 'gone') return { refused: outcome };
      if (outcome === 'added' || attempt === 3) return { replaced: null };
    }
  }

  /** Removes the named files (every file of the kind when `paths` is null); returns the keys of what was removed. */
  async remove(itemId: string, kind: ItemFileKind, paths: string[] | null): Promise<string[]> {
    const [rows]: [{ key: string }[], number] = await this.db.query(
      `DELETE FROM item_files WHERE item_id = $1 AND kind = $2 AND ($3::text[] IS NULL OR path = ANY ($3::text[])) RETURNING key`,
      [itemId, kind, paths],
    );
    return rows.map((r) => r.key);
  }
}

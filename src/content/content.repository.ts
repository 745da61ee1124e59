import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { ResultItems, SettledItem } from '../core/jobs/result-items';
import { SqlParams } from '../core/database/sql-params';
import { OutboxEvent, writeWithEvent } from '../core/events/outbox.repository';
import { ItemEntity } from './item.entity';
import { ITEM_COLUMNS, ITEM_FROM, ItemRow, visibleSql } from './item-sql';
import { ItemPatch, PATCH_COLUMNS, ReplacedKeys } from './item-patch';

/**
 * The owner of the items table: every other module creates, settles or deletes items through these methods, and the
 * sharing statement embeds the access update written in item-sql.ts (its single round trip is worth keeping).
 */
@Injectable()
export class ContentRepository implements ResultItems {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /**
   * Holds the item's row for the rest of the transaction unless it is protected (a protect then waits for it);
   * false when it is protected or gone. NO KEY UPDATE leaves foreign-key checks (a publish's rows) unblocked.
   */
  async lockUnprotected(m: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM items WHERE id = $1 AND NOT protected FOR NO KEY UPDATE`, [id]);
    return rows.length > 0;
  }

  /** Inserts an item; pass the EntityManager of an open transaction to commit it with other rows (a job, a service). */
  async insert(item: Partial<ItemEntity>, m?: EntityManager, event?: OutboxEvent): Promise<void> {
    await writeWithEvent(this.db, m, event, (tm) => tm.getRepository(ItemEntity).insert(item));
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

  /**
   * Puts the owner's requested items into `folderId` (null: the root) in one statement, locking them in id order so
   * concurrent batches queue instead of deadlocking. One row per requested item the owner has, saying whether it moved
   * (false: it was there already).
   */
  async moveToFolder(
    ownerId: string,
    itemIds: string[],
    folderId: string | null,
    event?: (rows: { id: string; moved: boolean }[]) => OutboxEvent | null,
  ): Promise<{ id: string; moved: boolean }[]> {
    return writeWithEvent(this.db, undefined, event, (m) =>
      m.query(
        `WITH cur AS (SELECT id, owner_folder FROM items WHERE id = ANY($2::text[]) AND owner_id = $1 ORDER BY id FOR NO KEY UPDATE),
            upd AS (UPDATE items i SET owner_folder = $3 FROM cur
                     WHERE i.id = cur.id AND cur.owner_folder IS DISTINCT FROM $3::text RETURNING i.id)
       SELECT cur.id, EXISTS (SELECT 1 FROM upd WHERE upd.id = cur.id) AS moved FROM cur`,
        [ownerId, itemIds, folderId],
      ),
    );
  }

  /** Moves a folder's items to the root, in the transaction that deletes the folder. */
  async clearFolder(m: EntityManager, folderId: string): Promise<void> {
    await m.query(`UPDATE items SET owner_folder = NULL WHERE owner_folder = $1`, [folderId]);
  }

  /** Locks the requested items `ownerId` has, in id order, for a change of owner in this transaction; returns their ids. */
  async lockOwned(m: EntityManager, ownerId: string, itemIds: string[]): Promise<string[]> {
    const rows: { id: string }[] = await m.query(
      `SELECT id FROM items WHERE id = ANY($2::text[]) AND owner_id = $1 ORDER BY id FOR NO KEY UPDATE`,
      [ownerId, itemIds],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Gives the (locked) items to `toOwnerId`, into their folder `folderId` (null: root), in one statement. Their sharing
   * level comes down to what the new owner may share to (`to`): public becomes org without public sharing, org becomes
   * private without organisation sharing. Returns each item's level before and after; `event` is built from them.
   */
  async reassign(
    m: EntityManager,
    itemIds: string[],
    fromOwnerId: string,
    toOwnerId: string,
    folderId: string | null,
    to: { public: boolean; org: boolean },
    event?: (levels: { id: string; was: string; access: string }[]) => OutboxEvent,
  ): Promise<{ id: string; was: string; access: string }[]> {
    return writeWithEvent(this.db, m, event, async (tm) => {
      const [rows]: [{ id: string; was: string; access: string }[], number] = await tm.query(
        `UPDATE items i SET owner_id = $3, owner_folder = $4, modified = now(),
                access = CASE WHEN i.access = 'public' AND NOT $5::boolean THEN CASE WHEN $6::boolean THEN 'org' ELSE 'private' END
                              WHEN i.access = 'org' AND NOT $6::boolean THEN 'private'
                              ELSE i.access END
           FROM (SELECT id, access FROM items WHERE id = ANY($1::text[]) AND owner_id = $2) o
          WHERE i.id = o.id
          RETURNING i.id, o.access AS was, i.access`,
        [itemIds, fromOwnerId, toOwnerId, folderId, to.public, to.org],
      );
      return rows;
    });
  }

  /** The status of an item whose data arrives in parts (multipart upload); final states go through `settle`. */
  async setStatus(id: string, status: 'partsUploading' | 'processing', message: string, m?: EntityManager): Promise<void> {
    await (m ?? this.db).query(`UPDATE items SET status = $2, status_message = $3 WHERE id = $1`, [id, status, message]);
  }

  /**
   * Deletes the item (its shares, files and relationships go with it) unless it is protected; returns whether it had
   * objects in storage, or null when nothing was deleted.
   */
  async delete(id: string, m?: EntityManager, event?: OutboxEvent): Promise<{ has_files: boolean } | null> {
    const [rows]: [{ has_files: boolean }[], number] = await writeWithEvent(
      this.db,
      m,
      event && ((r: [{ has_files: boolean }[], number]) => (r[0]?.length ? event : null)),
      (tm) =>
        tm.query(
          `DELETE FROM items i WHERE i.id = $1 AND NOT i.protected
       RETURNING (i.file_path IS NOT NULL OR i.thumbnail_key IS NOT NULL
                  OR EXISTS (SELECT 1 FROM item_files f WHERE f.item_id = i.id)
                  OR EXISTS (SELECT 1 FROM feature_attachments a WHERE a.service_item_id = i.id)) AS has_files`,
          [id],
        ),
    );
    return rows?.[0] ?? null;
  }

  /**
   * Changes the given properties in one statement (and `modified`); returns the storage keys the row named before,
   * which the caller removes once they were replaced, or null when the item is gone.
   */
  async update(id: string, patch: ItemPatch, event?: OutboxEvent): Promise<ReplacedKeys | null> {
    const values: unknown[] = [id];
    const sets = (Object.keys(patch) as (keyof ItemPatch)[])
      .filter((k) => patch[k] !== undefined)
      .map((k) => {
        const [column, cast] = PATCH_COLUMNS[k];
        const v = patch[k];
        values.push(cast === 'jsonb' && v !== null ? JSON.stringify(v) : v);
        return `${column} = $${values.length}::${cast}`;
      });
    const [rows]: [ReplacedKeys[], number] = await writeWithEvent(
      this.db,
      undefined,
      event && ((r: [ReplacedKeys[], number]) => (r[0].length ? event : null)),
      (m) =>
        m.query(
          `UPDATE items n SET ${[...sets, 'modified = now()'].join(', ')}
         FROM (SELECT file_path, thumbnail_key FROM items WHERE id = $1 FOR UPDATE) o
        WHERE n.id = $1
        RETURNING o.file_path, o.thumbnail_key`,
          values,
        ),
    );
    return rows[0] ?? null;
  }

  /** The thumbnail's object, when `thumbnail` (thumbnail/<name>) is the item's thumbnail. */
  async findThumbnailKey(id: string, thumbnail: string): Promise<string | null> {
    const rows: { thumbnail_key: string }[] = await this.db.query(
      `SELECT thumbnail_key FROM items WHERE id = $1 AND thumbnail = $2 AND thumbnail_key IS NOT NULL`,
      [id, thumbnail],
    );
    return rows[0]?.thumbnail_key ?? null;
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../core/ids';

export interface FolderRow {
  id: string;
  owner_id: string;
  title: string;
  created: Date;
}

const COLUMNS = 'id, owner_id, title, created';

/** The folders table: each user's folders, titles unique per user whatever their case. */
@Injectable()
export class FoldersRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** One transaction for a change that spans folders, items and shares (delete, reassign). */
  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** The new folder, or null when the owner has one of that title already (any case). */
  async create(ownerId: string, title: string): Promise<FolderRow | null> {
    const rows: FolderRow[] = await this.db.query(
      `INSERT INTO folders (id, owner_id, title) VALUES ($1, $2, $3)
       ON CONFLICT (owner_id, lower(title)) DO NOTHING RETURNING ${COLUMNS}`,
      [newId(), ownerId, title],
    );
    return rows[0] ?? null;
  }

  /** The owner's folder by id, or else by title (clients pass either where a folder is named). */
  async find(ownerId: string, idOrTitle: string): Promise<FolderRow | null> {
    const rows: FolderRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM folders WHERE owner_id = $1 AND (id = lower($2) OR lower(title) = lower($2))
        ORDER BY (id = lower($2)) DESC LIMIT 1`,
      [ownerId, idOrTitle],
    );
    return rows[0] ?? null;
  }

  async list(ownerId: string): Promise<FolderRow[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM folders WHERE owner_id = $1 ORDER BY lower(title), id`, [ownerId]);
  }

  /** The owner's folder of this title, created if there is none (reassign's targetFolderName), in the caller's transaction. */
  async ensure(m: EntityManager, ownerId: string, title: string): Promise<string> {
    const found = async () =>
      (await m.query(`SELECT id FROM folders WHERE owner_id = $1 AND lower(title) = lower($2)`, [ownerId, title]))[0]?.id as
        string | undefined;
    const rows: { id: string }[] = await m.query(
      `WITH ins AS (INSERT INTO folders (id, owner_id, title) VALUES ($1, $2, $3) ON CONFLICT (owner_id, lower(title)) DO NOTHING RETURNING id)
       SELECT id FROM ins UNION ALL SELECT id FROM folders WHERE owner_id = $2 AND lower(title) = lower($3) LIMIT 1`,
      [newId(), ownerId, title],
    );
    // A folder of that title committed by another request while this statement ran is seen by the next one.
    const id = rows[0]?.id ?? (await found());
    if (!id) throw new Error(`folder '${title}' of ${ownerId} neither created nor found`);
    return id;
  }

  async delete(m: EntityManager, id: string): Promise<void> {
    await m.query(`DELETE FROM folders WHERE id = $1`, [id]);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export interface UploadRow {
  item_id: string;
  file_name: string;
  storage_ref: string | null;
  state: 'uploading' | 'committing';
  started: Date;
}

export interface PartRow {
  part_num: number;
  size: string;
  etag: string;
}

/** What recording a part did: the etag of the part it replaced, or why it recorded nothing. */
export type PartRecorded = { replaced: string | null } | { refused: 'ended' | 'full' };

const UPLOAD_COLUMNS = 'item_id, file_name, storage_ref, state, started';

/** Multipart uploads and the parts received (item_uploads, item_upload_parts); the item rows stay ContentRepository's. */
@Injectable()
export class UploadRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async create(m: EntityManager, itemId: string, fileName: string, storageRef: string | null): Promise<void> {
    await m.query(`INSERT INTO item_uploads (item_id, file_name, storage_ref) VALUES ($1, $2, $3)`, [itemId, fileName, storageRef]);
  }

  async find(itemId: string): Promise<UploadRow | null> {
    const rows: UploadRow[] = await this.db.query(`SELECT ${UPLOAD_COLUMNS} FROM item_uploads WHERE item_id = $1`, [itemId]);
    return rows[0] ?? null;
  }

  /**
   * Records a stored part while the upload still takes parts and all its parts together stay within `maxBytes`. The
   * upload's row is locked first, so concurrent parts are counted one after another and cannot together pass it.
   * Returns the etag of the part it replaced (null if none), or why nothing was recorded: the upload was committed or
   * cancelled meanwhile (`ended`), or the part does not fit (`full`).
   */
  async putPart(itemId: string, partNum: number, size: number, etag: string, maxBytes: number): Promise<PartRecorded> {
    return this.db.transaction(async (m) => {
      const [locked]: [unknown[], number] = await m.query(
        `UPDATE item_uploads SET touched = now() WHERE item_id = $1 AND state = 'uploading' RETURNING item_id`,
        [itemId],
      );
      if (!locked.length) return { refused: 'ended' };
      if ((await this.bytesBesides(itemId, partNum, m)) + size > maxBytes) return { refused: 'full' };
      const rows: { replaced: string | null }[] = await m.query(
        `WITH old AS (SELECT etag FROM item_upload_parts WHERE item_id = $1 AND part_num = $2)
         INSERT INTO item_upload_parts (item_id, part_num, size, etag) VALUES ($1, $2, $3, $4)
         ON CONFLICT (item_id, part_num) DO UPDATE SET size = EXCLUDED.size, etag = EXCLUDED.etag
         RETURNING (SELECT etag FROM old) AS replaced`,
        [itemId, partNum, size, etag],
      );
      return { replaced: rows[0].replaced };
    });
  }

  /** Bytes of the upload's parts other than `exceptPart`. */
  async bytesBesides(itemId: string, exceptPart: number, m?: EntityManager): Promise<number> {
    const [r] = await (m ?? this.db).query(
      `SELECT coalesce(sum(size), 0)::text AS total FROM item_upload_parts WHERE item_id = $1 AND part_num <> $2`,
      [itemId, exceptPart],
    );
    return Number(r.total);
  }

  async parts(itemId: string): Promise<PartRow[]> {
    return this.db.query(`SELECT part_num, size::text, etag FROM item_upload_parts WHERE item_id = $1 ORDER BY part_num`, [itemId]);
  }

  /** Takes the upload from 'uploading' to 'committing'; null when it was not uploading (committed or cancelled already). */
  async claimCommit(m: EntityManager, itemId: string): Promise<UploadRow | null> {
    const [rows]: [UploadRow[]] = await m.query(
      `UPDATE item_uploads SET state = 'committing', touched = now() WHERE item_id = $1 AND state = 'uploading' RETURNING ${UPLOAD_COLUMNS}`,
      [itemId],
    );
    return rows[0] ?? null;
  }

  /** A commit still running says so, so that no other process takes it over. */
  async beat(itemId: string): Promise<void> {
    await this.db.query(`UPDATE item_uploads SET touched = now() WHERE item_id = $1 AND state = 'committing'`, [itemId]);
  }

  /** Ends an upload (its parts rows go with it); pass `state` to end it only from that state. */
  async remove(itemId: string, m?: EntityManager, state?: UploadRow['state']): Promise<UploadRow | null> {
    const [rows] = await (m ?? this.db).query(
      `DELETE FROM item_uploads WHERE item_id = $1 AND ($2::text IS NULL OR state = $2) RETURNING ${UPLOAD_COLUMNS}`,
      [itemId, state ?? null],
    );
    return rows?.[0] ?? null;
  }

  /** Uploads still taking parts that started before `before`: each is ended here, so one process sweeps it. */
  async takeExpired(before: Date): Promise<UploadRow[]> {
    const [rows] = await this.db.query(
      `DELETE FROM item_uploads WHERE item_id IN (
         SELECT item_id FROM item_uploads WHERE state = 'uploading' AND started < $1 ORDER BY item_id LIMIT 1000 FOR UPDATE SKIP LOCKED)
       RETURNING ${UPLOAD_COLUMNS}`,
      [before],
    );
    return rows;
  }

  /** Commits whose process stopped beating before `before` (it died): taken over by this one. */
  async takeStaleCommits(before: Date): Promise<UploadRow[]> {
    const [rows] = await this.db.query(
      `UPDATE item_uploads SET touched = now() WHERE item_id IN (
         SELECT item_id FROM item_uploads WHERE state = 'committing' AND touched < $1 ORDER BY item_id LIMIT 100 FOR UPDATE SKIP LOCKED)
       RETURNING ${UPLOAD_COLUMNS}`,
      [before],
    );
    return rows;
  }
}

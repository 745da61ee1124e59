import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** One export job as the exports page and the item page list it. */
export interface ExportRecord {
  jobId: string;
  /** Whose job it is (its cancelJob URL names them). */
  owner: string;
  status: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
  statusMessage: string;
  format: string;
  sourceItemId: string | null;
  /** Null when the source is gone, or neither the user's nor shared with their organisation or everyone. */
  sourceTitle: string | null;
  resultItemId: string | null;
  resultTitle: string | null;
  size: number | null;
  created: number;
  started: number | null;
  finished: number | null;
}

const COLUMNS = `j.id AS "jobId", o.username AS owner, j.status, j.status_message AS "statusMessage", coalesce(j.params->>'format', '') AS format,
  j.source_item_id AS "sourceItemId",
  CASE WHEN s.owner_id = j.owner_id OR s.access = 'public' OR (s.access = 'org' AND s.org_id = o.org_id) THEN s.title END AS "sourceTitle",
  j.result_item_id AS "resultItemId", r.title AS "resultTitle", CASE WHEN j.status = 'completed' THEN r.size END AS size,
  (extract(epoch FROM j.created) * 1000)::float8 AS created, (extract(epoch FROM j.started) * 1000)::float8 AS started,
  (extract(epoch FROM j.finished) * 1000)::float8 AS finished`;
const FROM = `jobs j JOIN users o ON o.id = j.owner_id LEFT JOIN items s ON s.id = j.source_item_id LEFT JOIN items r ON r.id = j.result_item_id`;

/** The export jobs of a user (their result items are theirs), newest first. */
@Injectable()
export class ExportHistoryRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async forOwner(ownerId: string, start: number, num: number): Promise<{ total: number; rows: ExportRecord[] }> {
    const rows: (ExportRecord & { total: number })[] = await this.db.query(
      `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM ${FROM} WHERE j.owner_id = $1 AND j.type = 'export'
        ORDER BY j.created DESC, j.id OFFSET $2 LIMIT $3`,
      [ownerId, start - 1, num],
    );
    return { total: rows[0]?.total ?? 0, rows: rows.map(({ total: _, ...r }) => fix(r)) };
  }

  /** An export job whose result or source is `itemId`, with its owner. */
  async job(jobId: string, itemId: string): Promise<{ owner_id: string; status: string } | null> {
    const rows: { owner_id: string; status: string }[] = await this.db.query(
      `SELECT owner_id, status FROM jobs WHERE id = $1 AND type = 'export' AND (result_item_id = $2 OR source_item_id = $2)`,
      [jobId, itemId],
    );
    return rows[0] ?? null;
  }

  /** The exports of one item that the user made (or an administrator: everyone's). */
  async forSource(itemId: string, ownerId: string | null, limit: number): Promise<ExportRecord[]> {
    const rows: ExportRecord[] = await this.db.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE j.source_item_id = $1 AND j.type = 'export' AND ($2::text IS NULL OR j.owner_id = $2)
        ORDER BY j.created DESC, j.id LIMIT $3`,
      [itemId, ownerId, limit],
    );
    return rows.map(fix);
  }
}

/** bigint sizes come back as text. */
function fix(r: ExportRecord): ExportRecord {
  return { ...r, size: r.size === null ? null : Number(r.size) };
}

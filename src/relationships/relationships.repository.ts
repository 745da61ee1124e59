import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { ITEM_COLUMNS, ItemRow, visibleSql } from '../content/item-sql';

export interface RelationshipKey {
  originId: string;
  destinationId: string;
  type: string;
}

/** The item_relationships table's one writer. Rows go with either item (ON DELETE CASCADE). */
@Injectable()
export class RelationshipsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Adds the relationship; one that exists already stays as it is (its creator too). */
  async add(r: RelationshipKey, creatorId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO item_relationships (origin_id, type, destination_id, creator_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (origin_id, type, destination_id) DO NOTHING`,
      [r.originId, r.type, r.destinationId, creatorId],
    );
  }

  /** Who made the relationship, or null when there is none. */
  async creatorOf(r: RelationshipKey): Promise<{ creator_id: string; org_id: string } | null> {
    const rows: { creator_id: string; org_id: string }[] = await this.db.query(
      `SELECT r.creator_id, u.org_id FROM item_relationships r JOIN users u ON u.id = r.creator_id
        WHERE r.origin_id = $1 AND r.type = $2 AND r.destination_id = $3`,
      [r.originId, r.type, r.destinationId],
    );
    return rows[0] ?? null;
  }

  /** Deletes it when made by `creatorId` (any creator when null); whether a row went. */
  async delete(r: RelationshipKey, creatorId: string | null): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.db.query(
      `DELETE FROM item_relationships WHERE origin_id = $1 AND type = $2 AND destination_id = $3 AND ($4::text IS NULL OR creator_id = $4)`,
      [r.originId, r.type, r.destinationId, creatorId],
    );
    return count > 0;
  }

  /**
   * The items related to `itemId` by any of `types` that the caller may see: destinations (forward) or origins
   * (reverse), oldest relationship first, at most `limit` of them, with how many there are in all.
   */
  async related(
    itemId: string,
    types: string[],
    direction: 'forward' | 'reverse',
    caller: Caller | undefined,
    limit: number,
  ): Promise<{ total: number; rows: ItemRow[] }> {
    const [self, other] = direction === 'forward' ? ['origin_id', 'destination_id'] : ['destination_id', 'origin_id'];
    const p = new SqlParams();
    const id = p.add(itemId);
    const kinds = p.add(types);
    const max = p.add(limit);
    const rows: (ItemRow & { total: string })[] = await this.db.query(
      `SELECT ${ITEM_COLUMNS}, count(*) OVER () AS total
         FROM (SELECT DISTINCT ON (r.${other}) r.${other} AS related_id, r.created
                 FROM item_relationships r WHERE r.${self} = ${id} AND r.type = ANY (${kinds}::text[])
                ORDER BY r.${other}, r.created) rel
         JOIN items i ON i.id = rel.related_id JOIN users u ON u.id = i.owner_id
        WHERE ${visibleSql('i', caller, p)}
        ORDER BY rel.created, i.id
        LIMIT ${max}`,
      p.values,
    );
    return { total: rows.length ? Number(rows[0].total) : 0, rows };
  }
}

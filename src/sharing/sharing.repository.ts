import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { Outbox, OutboxEvent } from '../core/events/outbox.repository';
import { itemAccessUpdateSql, visibleSql } from '../content/item-sql';

export interface ShareChange {
  caller: Caller;
  /** Acts for other owners (admin privilege); checked against each item's organisation in SQL. */
  callerIsAdmin: boolean;
  /** The owner named in the path; null on the group-admin routes (content/items/<id>/...). */
  ownerId: string | null;
  itemIds: string[];
  groupIds: string[];
}

/** Who receives reassigned items, and what their role lets them share. */
export interface NewOwner {
  userId: string;
  orgId: string;
  /** portal:user:shareToGroup */
  sharesToGroups: boolean;
  /** portal:admin:shareToGroup: any group of their organisation */
  adminShares: boolean;
}

export interface AccessChange {
  everyone: boolean | null;
  org: boolean | null;
}

/** What one statement found for one requested item. Items that are missing or not the owner's have no row. */
export interface ItemOutcome {
  item_id: string;
  accessible: boolean;
  /** Requested groups that exist but where the caller may not make this change. */
  denied: string[];
  existing_groups: string[];
  /** Sharing would have taken the item past the groups an item may be shared with: nothing changed for it. */
  over_cap: boolean;
}

/** Items and groups of the request, and what the caller may do with each pair; shared by share and unshare. */
function pairsCte(c: ShareChange, p: SqlParams): string {
  const caller = p.add(c.caller.userId);
  const org = p.add(c.caller.orgId);
  const admin = p.add(c.callerIsAdmin);
  const owner = p.add(c.ownerId);
  const items = p.add(c.itemIds);
  const groups = p.add(c.groupIds);
  return `
    it AS (
      SELECT i.id, i.owner_id, i.access,
             (i.owner_id = ${caller} OR (${admin}::boolean AND i.org_id = ${org})) AS for_owner,
             ${visibleSql('i', c.caller, p)} AS visible
        FROM items i
       WHERE i.id = ANY(${items}::text[]) AND (${owner}::text IS NULL OR i.owner_id = ${owner}::text)
    ),
    grp AS (
      SELECT g.id, g.org_id, g.is_view_only, m.member_type AS caller_type
        FROM groups g LEFT JOIN group_members m ON m.group_id = g.id AND m.user_id = ${caller}
       WHERE g.id = ANY(${groups}::text[])
    )`;
}

/** `overCap`: an expression on `it` (grouped by its id) saying the item was refused for the cap. */
const outcome = (overCap: string) => `
  SELECT it.id AS item_id, (it.visible OR it.for_owner) AS accessible,
         COALESCE(array_agg(p.group_id ORDER BY p.group_id) FILTER (WHERE NOT p.allowed), '{}') AS denied,
         (SELECT COALESCE(array_agg(id), '{}') FROM grp) AS existing_groups,
         ${overCap} AS over_cap
    FROM it LEFT JOIN pairs p ON p.item_id = it.id
   GROUP BY it.id, it.visible, it.for_owner`;

/**
 * Share and unshare are set-based: a fixed number of statements whatever the item and group counts.
 * Item rows are locked in id order first, so concurrent changes to the same items queue instead of deadlocking.
 */
@Injectable()
export class SharingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async managesAnyGroup(userId: string, groupIds: string[]): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT 1 FROM group_members WHERE user_id = $1 AND group_id = ANY($2::text[]) AND member_type IN ('owner','admin') LIMIT 1`,
      [userId, groupIds],
    );
    return rows.length > 0;
  }

  /** `event` turns the outcomes into the one event the batch raises, written in the same transaction (one INSERT). */
  unshare(c: ShareChange, event: (o: ItemOutcome[]) => OutboxEvent): Promise<ItemOutcome[]> {
    return this.db.transaction(async (m) => {
      await this.lockItems(m, c.itemIds);
      const p = new SqlParams();
      const sql = `WITH ${pairsCte(c, p)},
        pairs AS (
          SELECT it.id AS item_id, grp.id AS group_id,
                 (it.for_owner OR grp.caller_type IN ('owner','admin')) IS TRUE AS allowed
            FROM it CROSS JOIN grp WHERE it.visible OR it.for_owner
        ),
        del AS (
          DELETE FROM item_shares s USING pairs p
           WHERE s.item_id = p.item_id AND s.group_id = p.group_id AND p.allowed
        )
        ${outcome('false')}`;
      const outcomes: ItemOutcome[] = await m.query(sql, p.values);
      await Outbox.raise(m, event(outcomes));
      return outcomes;
    });
  }

  /**
   * The owner (or an admin for them) shares to groups the owner belongs to (to view-only groups only as their
   * manager); an admin also to any group of their organisation. A group manager shares others' org or public items
   * into the groups they manage. Access (everyone/org) changes only for items the caller acts for as owner.
   * An item that would end up shared with more than `maxGroups` groups changes in nothing; the count is exact
   * because the items are locked first, and it is part of the same statement whatever the number of items.
   */
  share(c: ShareChange, access: AccessChange, maxGroups: number, event: (o: ItemOutcome[]) => OutboxEvent): Promise<ItemOutcome[]> {
    return this.db.transaction(async (m) => {
      await this.lockItems(m, c.itemIds);
      const p = new SqlParams();
      const cte = pairsCte(c, p);
      const admin = p.add(c.callerIsAdmin);
      const org = p.add(c.caller.orgId);
      const everyone = p.add(access.everyone);
      const orgFlag = p.add(access.org);
      const max = p.add(maxGroups);
      const sql = `WITH ${cte},
        pairs AS (
          SELECT it.id AS item_id, grp.id AS group_id,
                 (CASE WHEN it.for_owner THEN
                        (om.member_type IS NOT NULL AND (NOT grp.is_view_only OR om.member_type IN ('owner','admin')))
                        OR (${admin}::boolean AND grp.org_id = ${org})
                       ELSE grp.caller_type IN ('owner','admin') AND it.access IN ('org','public') END) IS TRUE AS allowed
            FROM it CROSS JOIN grp
            LEFT JOIN group_members om ON om.group_id = grp.id AND om.user_id = it.owner_id
           WHERE it.visible OR it.for_owner
        ),
        added AS (
          SELECT p.item_id, p.group_id FROM pairs p
           WHERE p.allowed AND NOT EXISTS (SELECT 1 FROM item_shares s WHERE s.item_id = p.item_id AND s.group_id = p.group_id)
        ),
        over AS (
          SELECT a.item_id FROM added a GROUP BY a.item_id
          HAVING count(*) + (SELECT count(*) FROM item_shares s WHERE s.item_id = a.item_id) > ${max}::int
        ),
        ins AS (
          INSERT INTO item_shares (item_id, group_id)
          SELECT item_id, group_id FROM added WHERE item_id NOT IN (SELECT item_id FROM over)
          ON CONFLICT DO NOTHING
        ),
        within AS (SELECT * FROM it WHERE id NOT IN (SELECT item_id FROM over)),
        acc AS (${itemAccessUpdateSql(everyone, orgFlag, 'within')})
        ${outcome('it.id IN (SELECT item_id FROM over)')}`;
      const outcomes: ItemOutcome[] = await m.query(sql, p.values);
      await Outbox.raise(m, event(outcomes));
      return outcomes;
    });
  }

  /**
   * Takes locked items out of the groups their new owner could not share them to (reassign, in its transaction): a
   * group the new owner is not in, a view-only one they do not manage, any group when their role may not share to
   * groups; an administrator of the organisation may share to any group of it. One statement whatever the counts.
   */
  async dropForNewOwner(m: EntityManager, itemIds: string[], to: NewOwner): Promise<{ item_id: string; group_id: string }[]> {
    const [rows] = await m.query(
      `DELETE FROM item_shares s USING groups g
        WHERE s.item_id = ANY($1::text[]) AND g.id = s.group_id
          AND NOT ($3::boolean AND (($4::boolean AND g.org_id = $5)
               OR EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = g.id AND gm.user_id = $2
                           AND (NOT g.is_view_only OR gm.member_type IN ('owner','admin')))))
        RETURNING s.item_id, s.group_id`,
      [itemIds, to.userId, to.sharesToGroups, to.adminShares, to.orgId],
    );
    return rows;
  }

  private async lockItems(m: EntityManager, itemIds: string[]): Promise<void> {
    // NO KEY UPDATE leaves the FK checks of item_shares inserts (KEY SHARE) unblocked.
    await m.query(`SELECT id FROM items WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`, [itemIds]);
  }
}

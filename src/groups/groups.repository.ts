import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Caller, can, Privilege } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { GroupEntity, GroupMemberEntity, MemberType } from './group.entities';

export interface GroupMember {
  userId: string;
  username: string;
}

export interface GroupRow extends GroupEntity {
  owner: string;
}

/** A group as a caller sees it, with the caller's membership ('none' for anonymous callers and non-members). */
export interface VisibleGroup {
  group: GroupRow;
  membership: MemberType | 'none';
}

interface VisibleGroupSql {
  id: string;
  org_id: string;
  owner_id: string;
  owner: string;
  title: string;
  access: GroupEntity['access'];
  tags: string[];
  description: string;
  snippet: string;
  phone: string;
  sort_field: string;
  sort_order: string;
  is_invitation_only: boolean;
  is_view_only: boolean;
  is_fav: boolean;
  auto_join: boolean;
  created: Date;
  modified: Date;
  member_type: MemberType | null;
}

/**
 * Groups `g` (with the caller's membership row `m` joined) the caller may see: public groups to all, org groups to
 * their organisation, private groups to members and to administrators who may view the organisation's groups.
 */
function groupVisibleSql(caller: Caller | undefined, p: SqlParams): string {
  if (!caller) return `g.access = 'public'`;
  const org = p.add(caller.orgId);
  const admin = can(caller, Privilege.AdminViewGroups) ? ` OR g.org_id = ${org}` : '';
  return `(g.access = 'public' OR m.member_type IS NOT NULL OR (g.org_id = ${org} AND g.access = 'org')${admin})`;
}

@Injectable()
export class GroupsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The group and its owner's membership are created together or not at all, and only while the owner belongs to
   * fewer than `maxGroups` groups (false: at the cap, nothing created). The owner's row is locked first, so two
   * concurrent creates (or an addUsers) cannot both pass the count.
   */
  async create(group: Omit<GroupEntity, 'created' | 'modified'>, maxGroups: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      // NO KEY UPDATE: the FK checks of other inserts (KEY SHARE) on the user row are not blocked by it.
      await m.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [group.ownerId]);
      const [{ n }]: { n: number }[] = await m.query(`SELECT count(*)::int AS n FROM group_members WHERE user_id = $1`, [group.ownerId]);
      if (n >= maxGroups) return false;
      await m.insert(GroupEntity, group);
      await m.insert(GroupMemberEntity, { groupId: group.id, userId: group.ownerId, memberType: 'owner' });
      return true;
    });
  }

  /** One group as the caller sees it, in one statement; null when it does not exist or is not visible to them. */
  async findVisible(id: string, caller: Caller | undefined): Promise<VisibleGroup | null> {
    return (await this.visible(caller, (p) => `g.id = ${p.add(id)}`))[0] ?? null;
  }

  /** The groups an item is shared with that the caller may see, in one statement whatever their number. */
  async visibleGroupsOfItem(itemId: string, caller: Caller | undefined): Promise<VisibleGroup[]> {
    return this.visible(caller, (p) => `g.id IN (SELECT s.group_id FROM item_shares s WHERE s.item_id = ${p.add(itemId)})`);
  }

  private async visible(caller: Caller | undefined, where: (p: SqlParams) => string): Promise<VisibleGroup[]> {
    const p = new SqlParams();
    const uid = p.add(caller?.userId ?? null);
    const rows: VisibleGroupSql[] = await this.db.query(
      `SELECT g.*, u.username AS owner, m.member_type
         FROM groups g JOIN users u ON u.id = g.owner_id
         LEFT JOIN group_members m ON m.group_id = g.id AND m.user_id = ${uid}::text
        WHERE ${where(p)} AND ${groupVisibleSql(caller, p)}
        ORDER BY g.id`,
      p.values,
    );
    return rows.map((r) => ({
      group: {
        id: r.id,
        orgId: r.org_id,
        ownerId: r.owner_id,
        owner: r.owner,
        title: r.title,
        access: r.access,
        tags: r.tags,
        description: r.description,
        snippet: r.snippet,
        phone: r.phone,
        sortField: r.sort_field,
        sortOrder: r.sort_order,
        isInvitationOnly: r.is_invitation_only,
        isViewOnly: r.is_view_only,
        isFav: r.is_fav,
        autoJoin: r.auto_join,
        created: r.created,
        modified: r.modified,
      },
      membership: r.member_type ?? 'none',
    }));
  }

  /**
   * Adds users of the group's organisation; a member listed under `admins` is promoted. Returns the user names
   * (as requested) that were not added: no such user in the organisation, or one who already belongs to `maxGroups`
   * groups (ArcGIS's notAdded). The requested users' rows are locked first (one statement), so concurrent adds and
   * creates cannot together pass the cap; the check is part of the insert, whatever the number of users.
   */
  async addUsers(groupId: string, orgId: string, names: string[], memberType: 'member' | 'admin', maxGroups: number): Promise<string[]> {
    if (!names.length) return [];
    return this.db.transaction(async (m) => {
      await m.query(
        `SELECT u.id FROM users u WHERE u.org_id = $1 AND lower(u.username) = ANY (SELECT lower(r) FROM unnest($2::text[]) r)
          ORDER BY u.id FOR NO KEY UPDATE`,
        [orgId, names],
      );
      const rows: { requested: string; ok: boolean }[] = await m.query(
        `WITH req AS (SELECT DISTINCT r AS requested FROM unnest($3::text[]) r),
              found AS (
                SELECT req.requested, u.id,
                       EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = $1 AND gm.user_id = u.id) AS member,
                       (SELECT count(*) FROM group_members gm WHERE gm.user_id = u.id) AS groups
                  FROM req JOIN users u ON lower(u.username) = lower(req.requested) AND u.org_id = $2),
              ok AS (SELECT requested, id FROM found WHERE member OR groups < $5),
              ins AS (
                INSERT INTO group_members (group_id, user_id, member_type)
                SELECT DISTINCT $1, id, $4 FROM ok
                ON CONFLICT (group_id, user_id) DO UPDATE SET member_type = EXCLUDED.member_type
                  WHERE group_members.member_type = 'member' AND EXCLUDED.member_type = 'admin'
                RETURNING user_id)
         SELECT req.requested, ok.id IS NOT NULL AS ok FROM req LEFT JOIN ok USING (requested)`,
        [groupId, orgId, names, memberType, maxGroups],
      );
      return rows.filter((r) => !r.ok).map((r) => r.requested);
    });
  }

  /** Removes members other than the owner; returns the names that were not removed. */
  async removeUsers(groupId: string, names: string[]): Promise<string[]> {
    const rows: { requested: string; ok: boolean }[] = await this.db.query(
      `WITH req AS (SELECT DISTINCT r AS requested FROM unnest($2::text[]) r),
            del AS (
              DELETE FROM group_members m USING users u, req
               WHERE m.group_id = $1 AND m.user_id = u.id AND lower(u.username) = lower(req.requested) AND m.member_type <> 'owner'
              RETURNING req.requested)
       SELECT req.requested, EXISTS (SELECT 1 FROM del WHERE del.requested = req.requested) AS ok FROM req`,
      [groupId, names],
    );
    return rows.filter((r) => !r.ok).map((r) => r.requested);
  }

  /** Sets member or admin on existing non-owner members; returns per-name success. */
  async updateMemberships(groupId: string, names: string[], memberType: 'member' | 'admin') {
    const rows: { username: string; success: boolean }[] = await this.db.query(
      `WITH req AS (SELECT r AS requested, ord FROM unnest($2::text[]) WITH ORDINALITY AS x(r, ord)),
            upd AS (
              UPDATE group_members m SET member_type = $3 FROM users u, req
               WHERE m.group_id = $1 AND m.user_id = u.id AND lower(u.username) = lower(req.requested) AND m.member_type <> 'owner'
              RETURNING req.requested)
       SELECT req.requested AS username, EXISTS (SELECT 1 FROM upd WHERE upd.requested = req.requested) AS success
         FROM req ORDER BY req.ord`,
      [groupId, names, memberType],
    );
    return rows;
  }

  /** Every member of the group (owner and managers included), in user name order. */
  members(groupId: string): Promise<GroupMember[]> {
    return this.db.query(
      `SELECT u.id AS "userId", u.username FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = $1 ORDER BY lower(u.username)`,
      [groupId],
    );
  }

  async delete(id: string): Promise<void> {
    await this.db.getRepository(GroupEntity).delete({ id });
  }
}

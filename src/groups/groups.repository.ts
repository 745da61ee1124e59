import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { Outbox, OutboxEvent, writeWithEvent } from '../core/events/outbox.repository';
import { GroupEntity, GroupMemberEntity, InvitationRole } from './group.entities';
import { GROUP_COLUMNS, groupFrom, GroupSql, groupVisibleSql, toVisibleGroup, VisibleGroup } from './group-sql';

/** What `update` may change, by column; absent keys are left as they are. */
export interface GroupPatch {
  title?: string;
  access?: GroupEntity['access'];
  tags?: string[];
  typeKeywords?: string[];
  description?: string;
  snippet?: string;
  phone?: string;
  sortField?: string;
  sortOrder?: string;
  isInvitationOnly?: boolean;
  isViewOnly?: boolean;
  autoJoin?: boolean;
  membershipAccess?: GroupEntity['membershipAccess'];
  thumbnail?: string | null;
  thumbnailKey?: string | null;
}

const PATCH_COLUMNS: Record<keyof GroupPatch, string> = {
  title: 'title',
  access: 'access',
  tags: 'tags',
  typeKeywords: 'type_keywords',
  description: 'description',
  snippet: 'snippet',
  phone: 'phone',
  sortField: 'sort_field',
  sortOrder: 'sort_order',
  isInvitationOnly: 'is_invitation_only',
  isViewOnly: 'is_view_only',
  autoJoin: 'auto_join',
  membershipAccess: 'membership_access',
  thumbnail: 'thumbnail',
  thumbnailKey: 'thumbnail_key',
};

/** Per requested user name, whether the change applied to it. */
export interface NameResult {
  requested: string;
  ok: boolean;
}

export type JoinOutcome = 'joined' | 'requested' | 'member' | 'full';

/**
 * Statements that return rows are SELECTs (a DELETE or UPDATE inside WITH when needed): TypeORM answers a top-level
 * DELETE or UPDATE with [rows, count] instead of the rows.
 *
 * The one writer of groups, memberships, join requests and invitations (so that events can be raised in one place),
 * and the reads that decide access to one group. Every batch is a fixed number of statements whatever its size.
 */
@Injectable()
export class GroupsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The group and its owner's membership are created together or not at all, and only while the owner belongs to
   * fewer than `maxGroups` groups (false: at the cap, nothing created). The owner's row is locked first, so two
   * concurrent creates (or an addUsers) cannot both pass the count.
   */
  async create(
    group: Omit<GroupEntity, 'created' | 'modified' | 'protected' | 'categorySchema' | 'thumbnail' | 'thumbnailKey'>,
    maxGroups: number,
    event?: OutboxEvent,
  ): Promise<boolean> {
    return this.db.transaction(async (m) => {
      if (!(await this.lockUnderCap(m, group.ownerId, maxGroups))) return false;
      await m.insert(GroupEntity, group);
      await m.insert(GroupMemberEntity, { groupId: group.id, userId: group.ownerId, memberType: 'owner' });
      if (event) await Outbox.raise(m, event);
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
    const rows: GroupSql[] = await this.db.query(
      `SELECT ${GROUP_COLUMNS} FROM ${groupFrom(uid)} WHERE ${where(p)} AND ${groupVisibleSql(caller, p)} ORDER BY g.id`,
      p.values,
    );
    return rows.map(toVisibleGroup);
  }

  /**
   * Changes the given columns and `modified` in one statement; returns the thumbnail key the group had before (to
   * remove once it is replaced), or undefined when the group is gone.
   */
  async update(id: string, patch: GroupPatch, event?: OutboxEvent): Promise<{ oldThumbnailKey: string | null } | undefined> {
    const p = new SqlParams();
    const gid = p.add(id);
    const sets = (Object.keys(patch) as (keyof GroupPatch)[])
      .filter((k) => patch[k] !== undefined)
      .map((k) => `${PATCH_COLUMNS[k]} = ${p.add(patch[k])}`);
    const rows: { old: string | null }[] = await writeWithEvent<{ old: string | null }[]>(
      this.db,
      undefined,
      event && ((r: object[]) => (r.length ? event : null)),
      (m) =>
        m.query(
          // The row is locked as it is read (not in a CTE of its own, which would see the row this statement updates as
          // changed and skip it), so a concurrent update's thumbnail is the one reported as replaced.
          `WITH upd AS (
         UPDATE groups g SET ${[...sets, 'modified = now()'].join(', ')}
           FROM (SELECT thumbnail_key FROM groups WHERE id = ${gid} FOR UPDATE) before
          WHERE g.id = ${gid} RETURNING before.thumbnail_key AS old)
       SELECT old FROM upd`,
          p.values,
        ),
    );
    return rows.length ? { oldThumbnailKey: rows[0].old } : undefined;
  }

  async setProtected(id: string, value: boolean, event?: OutboxEvent): Promise<void> {
    await writeWithEvent(this.db, undefined, event, (m) =>
      m.query(`UPDATE groups SET protected = $2, modified = now() WHERE id = $1`, [id, value]),
    );
  }

  async setCategorySchema(id: string, schema: unknown[]): Promise<void> {
    await this.db.query(`UPDATE groups SET category_schema = $2::jsonb, modified = now() WHERE id = $1`, [id, JSON.stringify(schema)]);
  }

  /** Deletes an unprotected group; returns its thumbnail's key, or undefined when nothing was deleted (protected or gone). */
  async delete(id: string, event?: OutboxEvent): Promise<{ thumbnailKey: string | null } | undefined> {
    const rows: { thumbnail_key: string | null }[] = await writeWithEvent<{ thumbnail_key: string | null }[]>(
      this.db,
      undefined,
      event && ((r: object[]) => (r.length ? event : null)),
      (m) => m.query(`WITH del AS (DELETE FROM groups WHERE id = $1 AND NOT protected RETURNING thumbnail_key) SELECT * FROM del`, [id]),
    );
    return rows.length ? { thumbnailKey: rows[0].thumbnail_key } : undefined;
  }

  /**
   * Adds users of the group's organisation; a member listed under `admins` is promoted. Returns per requested name
   * whether it was added: not when there is no such user in the organisation, or one who already belongs to
   * `maxGroups` groups (ArcGIS's notAdded). The requested users' rows are locked first (one statement), so concurrent
   * adds and creates cannot together pass the cap; the check is part of the insert, which also settles the added
   * users' requests to join and invitations.
   */
  async addUsers(
    groupId: string,
    orgId: string,
    names: string[],
    memberType: 'member' | 'admin',
    maxGroups: number,
    event?: (r: NameResult[]) => OutboxEvent | null,
  ): Promise<NameResult[]> {
    if (!names.length) return [];
    return writeWithEvent(this.db, undefined, event, async (m) => {
      await m.query(
        `SELECT u.id FROM users u WHERE u.org_id = $1 AND lower(u.username) = ANY (SELECT lower(r) FROM unnest($2::text[]) r)
          ORDER BY u.id FOR NO KEY UPDATE`,
        [orgId, names],
      );
      return m.query(
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
                RETURNING user_id),
              apps AS (DELETE FROM group_applications a WHERE a.group_id = $1 AND a.user_id IN (SELECT id FROM ok) RETURNING 1),
              invs AS (DELETE FROM group_invitations i WHERE i.group_id = $1 AND i.user_id IN (SELECT id FROM ok) RETURNING 1)
         SELECT req.requested, ok.id IS NOT NULL AS ok FROM req LEFT JOIN ok USING (requested)`,
        [groupId, orgId, names, memberType, maxGroups],
      );
    });
  }

  /** Removes members other than the owner, and managers only when `admins` is true; per requested name, whether removed. */
  async removeUsers(
    groupId: string,
    names: string[],
    admins: boolean,
    event?: (r: NameResult[]) => OutboxEvent | null,
  ): Promise<NameResult[]> {
    return writeWithEvent(this.db, undefined, event, (m) =>
      m.query(
        `WITH req AS (SELECT DISTINCT r AS requested FROM unnest($2::text[]) r),
            del AS (
              DELETE FROM group_members m USING users u, req
               WHERE m.group_id = $1 AND m.user_id = u.id AND lower(u.username) = lower(req.requested)
                 AND (m.member_type = 'member' OR (m.member_type = 'admin' AND $3))
              RETURNING req.requested)
       SELECT req.requested, EXISTS (SELECT 1 FROM del WHERE del.requested = req.requested) AS ok FROM req`,
        [groupId, names, admins],
      ),
    );
  }

  /** Sets member or admin on existing non-owner members; per requested name in request order, whether it applied. */
  async updateMemberships(
    groupId: string,
    names: string[],
    memberType: 'member' | 'admin',
    event?: (r: { username: string; success: boolean }[]) => OutboxEvent | null,
  ): Promise<{ username: string; success: boolean }[]> {
    return writeWithEvent(this.db, undefined, event, (m) =>
      m.query(
        `WITH req AS (SELECT r AS requested, ord FROM unnest($2::text[]) WITH ORDINALITY AS x(r, ord)),
            upd AS (
              UPDATE group_members m SET member_type = $3 FROM users u, req
               WHERE m.group_id = $1 AND m.user_id = u.id AND lower(u.username) = lower(req.requested) AND m.member_type <> 'owner'
              RETURNING req.requested)
       SELECT req.requested AS username, EXISTS (SELECT 1 FROM upd WHERE upd.requested = req.requested) AS success
         FROM req ORDER BY req.ord`,
        [groupId, names, memberType],
      ),
    );
  }

  /**
   * The caller joins (`direct`) or asks to join. A direct join is refused at `maxGroups` ('full'); the user's row is
   * locked first, as in create. Joining settles the user's pending request and invitation for the group.
   */
  async join(groupId: string, userId: string, direct: boolean, maxGroups: number): Promise<JoinOutcome> {
    return this.db.transaction(async (m) => {
      const [{ member }]: { member: boolean }[] = await m.query(
        `SELECT EXISTS (SELECT 1 FROM group_members WHERE group_id = $1 AND user_id = $2) AS member`,
        [groupId, userId],
      );
      if (member) return 'member';
      if (!direct) {
        await m.query(`INSERT INTO group_applications (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [groupId, userId]);
        return 'requested';
      }
      if (!(await this.lockUnderCap(m, userId, maxGroups))) return 'full';
      await m.query(
        `WITH ins AS (INSERT INTO group_members (group_id, user_id, member_type) VALUES ($1, $2, 'member') ON CONFLICT DO NOTHING),
              apps AS (DELETE FROM group_applications WHERE group_id = $1 AND user_id = $2),
              invs AS (DELETE FROM group_invitations WHERE group_id = $1 AND user_id = $2)
         SELECT 1`,
        [groupId, userId],
      );
      return 'joined';
    });
  }

  /** The user leaves the group (never its owner); false when they were no member. Withdraws a pending request too. */
  async leave(groupId: string, userId: string): Promise<boolean> {
    const [{ was_member }]: { was_member: boolean }[] = await this.db.query(
      `WITH del AS (DELETE FROM group_members WHERE group_id = $1 AND user_id = $2 AND member_type <> 'owner' RETURNING 1),
            apps AS (DELETE FROM group_applications WHERE group_id = $1 AND user_id = $2 RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM del) AS was_member`,
      [groupId, userId],
    );
    return was_member;
  }

  /**
   * Invites the named users, in one statement: enabled users (of `orgId` when not null) who are not members yet get
   * an invitation, or their pending one renewed with this role and expiry. Per requested name, whether invited.
   */
  async invite(
    groupId: string,
    fromUserId: string,
    names: string[],
    role: InvitationRole,
    expires: Date,
    orgId: string | null,
  ): Promise<NameResult[]> {
    return this.db.query(
      `WITH req AS (SELECT DISTINCT r AS requested FROM unnest($2::text[]) r),
            found AS (
              SELECT req.requested, u.id FROM req JOIN users u ON lower(u.username) = lower(req.requested)
               WHERE NOT u.disabled AND ($6::text IS NULL OR u.org_id = $6)
                 AND NOT EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = $1 AND gm.user_id = u.id)),
            ins AS (
              INSERT INTO group_invitations (id, group_id, user_id, from_user_id, role, expires)
              SELECT DISTINCT ON (f.id) replace(gen_random_uuid()::text, '-', ''), $1::text, f.id, $3::text, $4::text, $5::timestamptz
                FROM found f
              ON CONFLICT (group_id, user_id) DO UPDATE
                SET role = EXCLUDED.role, expires = EXCLUDED.expires, from_user_id = EXCLUDED.from_user_id, created = now()
              RETURNING user_id)
       SELECT req.requested, EXISTS (SELECT 1 FROM found f WHERE f.requested = req.requested) AS ok FROM req`,
      [groupId, names, fromUserId, role, expires, orgId],
    );
  }

  /**
   * Accepts the user's unexpired invitation: membership with the invitation's role, unless the user is at
   * `maxGroups` ('full'; the invitation stays). Returns the group id, or undefined when there is no such invitation.
   */
  async acceptInvitation(id: string, userId: string, maxGroups: number): Promise<{ groupId: string; ok: boolean } | undefined> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
      const [row]: { group_id: string | null; ok: boolean }[] = await m.query(
        `WITH inv AS (SELECT group_id, role FROM group_invitations WHERE id = $1 AND user_id = $2 AND expires > now() FOR UPDATE),
              ok AS (
                SELECT inv.* FROM inv
                 WHERE (SELECT count(*) FROM group_members WHERE user_id = $2) < $3
                    OR EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = inv.group_id AND gm.user_id = $2)),
              ins AS (
                INSERT INTO group_members (group_id, user_id, member_type)
                SELECT group_id, $2::text, CASE WHEN role = 'group_admin' THEN 'admin' ELSE 'member' END FROM ok
                ON CONFLICT (group_id, user_id) DO UPDATE SET member_type = 'admin'
                  WHERE group_members.member_type = 'member' AND EXCLUDED.member_type = 'admin'
                RETURNING 1),
              del AS (DELETE FROM group_invitations WHERE id = $1 AND EXISTS (SELECT 1 FROM ok) RETURNING 1),
              apps AS (DELETE FROM group_applications a USING ok WHERE a.group_id = ok.group_id AND a.user_id = $2 RETURNING 1)
         SELECT (SELECT group_id FROM inv) AS group_id, EXISTS (SELECT 1 FROM ok) AS ok`,
        [id, userId, maxGroups],
      );
      return row.group_id ? { groupId: row.group_id, ok: row.ok } : undefined;
    });
  }

  /** Deletes the user's unexpired invitation; returns its group id, or undefined when there was none. */
  async declineInvitation(id: string, userId: string): Promise<string | undefined> {
    const rows: { group_id: string }[] = await this.db.query(
      `WITH del AS (DELETE FROM group_invitations WHERE id = $1 AND user_id = $2 AND expires > now() RETURNING group_id)
       SELECT * FROM del`,
      [id, userId],
    );
    return rows[0]?.group_id;
  }

  /**
   * Accepts a user's request to join: the user becomes a member unless at `maxGroups` ('full'; the request stays).
   * Returns the user's name as stored, or undefined when there is no such request.
   */
  async acceptApplication(groupId: string, username: string, maxGroups: number): Promise<{ username: string; ok: boolean } | undefined> {
    return this.db.transaction(async (m) => {
      const [user]: { id: string }[] = await m.query(
        `SELECT u.id FROM users u JOIN group_applications a ON a.user_id = u.id AND a.group_id = $1
          WHERE lower(u.username) = lower($2) FOR NO KEY UPDATE OF u`,
        [groupId, username],
      );
      if (!user) return undefined;
      const [row]: { username: string; ok: boolean }[] = await m.query(
        `WITH ok AS (SELECT 1 WHERE (SELECT count(*) FROM group_members WHERE user_id = $2) < $3),
              ins AS (INSERT INTO group_members (group_id, user_id, member_type) SELECT $1::text, $2::text, 'member' FROM ok ON CONFLICT DO NOTHING RETURNING 1),
              del AS (DELETE FROM group_applications WHERE group_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM ok) RETURNING 1),
              invs AS (DELETE FROM group_invitations WHERE group_id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM ok) RETURNING 1)
         SELECT (SELECT username FROM users WHERE id = $2) AS username, EXISTS (SELECT 1 FROM ok) AS ok`,
        [groupId, user.id, maxGroups],
      );
      return row;
    });
  }

  /** Deletes a user's request to join; returns the user's name as stored, or undefined when there was none. */
  async declineApplication(groupId: string, username: string): Promise<string | undefined> {
    const rows: { username: string }[] = await this.db.query(
      `WITH del AS (
         DELETE FROM group_applications a USING users u
          WHERE a.group_id = $1 AND a.user_id = u.id AND lower(u.username) = lower($2) RETURNING u.username)
       SELECT * FROM del`,
      [groupId, username],
    );
    return rows[0]?.username;
  }

  /**
   * Locks the user's row, then tells whether they belong to fewer than `maxGroups` groups. NO KEY UPDATE: the FK checks
   * of other inserts (KEY SHARE) on the user row are not blocked by it.
   */
  private async lockUnderCap(m: EntityManager, userId: string, maxGroups: number): Promise<boolean> {
    await m.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
    const [{ n }]: { n: number }[] = await m.query(`SELECT count(*)::int AS n FROM group_members WHERE user_id = $1`, [userId]);
    return n < maxGroups;
  }
}

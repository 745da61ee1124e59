import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GroupEntity, GroupMemberEntity, MemberType } from './group.entities';

export interface GroupRow extends GroupEntity {
  owner: string;
}

@Injectable()
export class GroupsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The group and its owner's membership are created together or not at all. */
  async create(group: Omit<GroupEntity, 'created' | 'modified'>): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.insert(GroupEntity, group);
      await m.insert(GroupMemberEntity, { groupId: group.id, userId: group.ownerId, memberType: 'owner' });
    });
  }

  async find(id: string): Promise<GroupRow | null> {
    const g = await this.db
      .getRepository(GroupEntity)
      .createQueryBuilder('g')
      .innerJoin('users', 'u', 'u.id = g.owner_id')
      .addSelect('u.username', 'owner_name')
      .where('g.id = :id', { id })
      .getRawAndEntities();
    return g.entities[0] ? { ...g.entities[0], owner: g.raw[0].owner_name } : null;
  }

  async memberType(groupId: string, userId: string): Promise<MemberType | null> {
    const m = await this.db.getRepository(GroupMemberEntity).findOneBy({ groupId, userId });
    return m?.memberType ?? null;
  }

  /**
   * Adds users of the group's organisation; a member listed under `admins` is promoted. Returns the user names
   * (as requested) that were not added because no such user exists in the organisation.
   */
  async addUsers(groupId: string, orgId: string, names: string[], memberType: 'member' | 'admin'): Promise<string[]> {
    if (!names.length) return [];
    const rows: { requested: string; ok: boolean }[] = await this.db.query(
      `WITH req AS (SELECT DISTINCT r AS requested FROM unnest($3::text[]) r),
            found AS (SELECT req.requested, u.id FROM req JOIN users u ON lower(u.username) = lower(req.requested) AND u.org_id = $2),
            ins AS (
              INSERT INTO group_members (group_id, user_id, member_type)
              SELECT DISTINCT $1, id, $4 FROM found
              ON CONFLICT (group_id, user_id) DO UPDATE SET member_type = EXCLUDED.member_type
                WHERE group_members.member_type = 'member' AND EXCLUDED.member_type = 'admin'
              RETURNING user_id)
       SELECT req.requested, found.id IS NOT NULL AS ok FROM req LEFT JOIN found USING (requested)`,
      [groupId, orgId, names, memberType],
    );
    return rows.filter((r) => !r.ok).map((r) => r.requested);
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

  async delete(id: string): Promise<void> {
    await this.db.getRepository(GroupEntity).delete({ id });
  }
}

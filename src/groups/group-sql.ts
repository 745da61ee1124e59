import { Caller, can, Privilege } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { GroupEntity, MemberType } from './group.entities';

export interface GroupRow extends GroupEntity {
  owner: string;
}

/** A group as a caller sees it, with the caller's membership ('none' for anonymous callers and non-members). */
export interface VisibleGroup {
  group: GroupRow;
  membership: MemberType | 'none';
  /** Pending requests to join, counted for the group's owner and managers only (else 0). */
  applications: number;
}

export interface GroupSql {
  id: string;
  org_id: string;
  owner_id: string;
  owner: string;
  title: string;
  access: GroupEntity['access'];
  tags: string[];
  type_keywords: string[];
  description: string;
  snippet: string;
  phone: string;
  sort_field: string;
  sort_order: string;
  is_invitation_only: boolean;
  is_view_only: boolean;
  is_fav: boolean;
  auto_join: boolean;
  protected: boolean;
  membership_access: GroupEntity['membershipAccess'];
  category_schema: unknown[] | null;
  thumbnail: string | null;
  thumbnail_key: string | null;
  created: Date;
  modified: Date;
  member_type?: MemberType | null;
  applications?: number | null;
}

/**
 * Columns of a group `g` joined to its owner `u` and the caller's membership row `m` (LEFT JOIN, may be absent), with
 * the pending applications counted only where `m` makes the caller a manager.
 */
export const GROUP_COLUMNS = `g.*, u.username AS owner, m.member_type,
  CASE WHEN m.member_type IN ('owner','admin')
       THEN (SELECT count(*)::int FROM group_applications ga WHERE ga.group_id = g.id) ELSE 0 END AS applications`;

/** The FROM clause for GROUP_COLUMNS; `uid` is the bound caller id (NULL when anonymous). */
export const groupFrom = (uid: string) =>
  `groups g JOIN users u ON u.id = g.owner_id LEFT JOIN group_members m ON m.group_id = g.id AND m.user_id = ${uid}::text`;

/**
 * Groups `g` (with the caller's membership row `m` joined) the caller may see: public groups to all, org groups to
 * their organisation, private groups to members and to administrators who may view the organisation's groups.
 */
export function groupVisibleSql(caller: Caller | undefined, p: SqlParams): string {
  if (!caller) return `g.access = 'public'`;
  const org = p.add(caller.orgId);
  const admin = can(caller, Privilege.AdminViewGroups) ? ` OR g.org_id = ${org}` : '';
  return `(g.access = 'public' OR m.member_type IS NOT NULL OR (g.org_id = ${org} AND g.access = 'org')${admin})`;
}

export function toGroupRow(r: GroupSql): GroupRow {
  return {
    id: r.id,
    orgId: r.org_id,
    ownerId: r.owner_id,
    owner: r.owner,
    title: r.title,
    access: r.access,
    tags: r.tags,
    typeKeywords: r.type_keywords,
    description: r.description,
    snippet: r.snippet,
    phone: r.phone,
    sortField: r.sort_field,
    sortOrder: r.sort_order,
    isInvitationOnly: r.is_invitation_only,
    isViewOnly: r.is_view_only,
    isFav: r.is_fav,
    autoJoin: r.auto_join,
    protected: r.protected,
    membershipAccess: r.membership_access,
    categorySchema: r.category_schema,
    thumbnail: r.thumbnail,
    thumbnailKey: r.thumbnail_key,
    created: r.created,
    modified: r.modified,
  };
}

export function toVisibleGroup(r: GroupSql): VisibleGroup {
  return { group: toGroupRow(r), membership: r.member_type ?? 'none', applications: r.applications ?? 0 };
}

import { Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { ListingDatabase } from '../core/database/request-pools.module';
import { SqlParams } from '../core/database/sql-params';
import { SearchNode } from '../core/search/search-query';
import { anyOfPattern, likePattern, orBranches, rangeSql } from '../core/search/search-sql';
import { InvitationRole, MemberType } from './group.entities';
import { GROUP_COLUMNS, groupFrom, GroupSql, groupVisibleSql, toVisibleGroup, VisibleGroup } from './group-sql';

export const GROUP_SEARCH_FIELDS = [
  'id',
  'title',
  'owner',
  'description',
  'snippet',
  'tags',
  'typekeywords',
  'phone',
  'access',
  'orgid',
  'isinvitationonly',
] as const;
export type GroupSearchField = (typeof GROUP_SEARCH_FIELDS)[number];
export const GROUP_RANGE_FIELDS = ['created', 'modified'] as const;
export type GroupSearchNode = SearchNode<GroupSearchField, (typeof GROUP_RANGE_FIELDS)[number]>;

export const GROUP_SORT_FIELDS = ['title', 'owner', 'avgrating', 'numviews', 'created', 'modified'] as const;
export type GroupSortField = (typeof GROUP_SORT_FIELDS)[number];

export interface Page {
  start: number;
  num: number;
}

/** Groups have no ratings or views: those sorts keep the id order, so paging stays stable. */
const GROUP_SORT: Record<GroupSortField, string> = {
  title: 'lower(g.title)',
  owner: 'lower(u.username)',
  avgrating: 'g.id',
  numviews: 'g.id',
  created: 'g.created',
  modified: 'g.modified',
};

export const MEMBER_SORT_FIELDS = ['username', 'fullName', 'joined', 'memberType'] as const;
export type MemberSortField = (typeof MEMBER_SORT_FIELDS)[number];
const MEMBER_SORT: Record<MemberSortField, string> = {
  username: 'lower(u.username)',
  fullName: 'lower(u.full_name)',
  joined: 'm.created',
  memberType: `CASE m.member_type WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`,
};

export interface MemberFilter {
  name?: string;
  memberTypes?: MemberType[];
  joined?: [number | null, number | null];
  sortField: MemberSortField;
  sortOrder: 'asc' | 'desc';
}

export interface MemberRow {
  user_id: string;
  username: string;
  full_name: string;
  org_id: string;
  member_type: MemberType;
  joined: Date;
}

export interface ApplicationRow {
  username: string;
  full_name: string;
  received: Date;
}

export interface InvitationRow extends GroupSql {
  inv_id: string;
  inv_role: InvitationRole;
  inv_expires: Date;
  inv_created: Date;
  inv_username: string;
  from_username: string | null;
  from_full_name: string | null;
}

/** Free text matches these columns of a group, as ArcGIS's group search does (its owner's name included). */
const TEXT_COLUMNS = ['g.title', 'g.snippet', 'g.description', `array_to_string(g.tags, E'\\n')`, 'u.username'];

/**
 * Reads of groups and memberships whose cost the request chooses (searches, member listings): on the listing pool,
 * with its statement timeout and per-client shares, never on the main pool. Writes are GroupsRepository's.
 */
@Injectable()
export class GroupListRepository {
  constructor(private readonly db: ListingDatabase) {}

  async search(
    node: GroupSearchNode | undefined,
    caller: Caller | undefined,
    memberOnly: boolean,
    sort: { field: GroupSortField; order: 'asc' | 'desc' },
    page: Page,
  ): Promise<{ total: number; rows: VisibleGroup[] }> {
    const p = new SqlParams();
    const uid = p.add(caller?.userId ?? null);
    const where = [
      groupVisibleSql(caller, p),
      ...(node ? [this.searchSql(node, p)] : []),
      ...(memberOnly ? ['m.member_type IS NOT NULL'] : []),
    ];
    const order = `${GROUP_SORT[sort.field]} ${sort.order === 'desc' ? 'DESC' : 'ASC'}, g.id`;
    const { total, rows } = await this.page<GroupSql>(
      `SELECT ${GROUP_COLUMNS}, count(*) OVER () AS total FROM ${groupFrom(uid)} WHERE ${where.join(' AND ')} ORDER BY ${order}`,
      `SELECT count(*)::int AS total FROM ${groupFrom(uid)} WHERE ${where.join(' AND ')}`,
      p,
      page,
    );
    return { total, rows: rows.map(toVisibleGroup) };
  }

  /** The group's members matching the filter, a page of them, and how many match. */
  async members(groupId: string, f: MemberFilter, page: Page): Promise<{ total: number; rows: MemberRow[] }> {
    const p = new SqlParams();
    const where = [`m.group_id = ${p.add(groupId)}`];
    if (f.name) {
      const like = p.add(`%${likePattern(f.name)}%`);
      where.push(`(u.username ILIKE ${like} OR u.full_name ILIKE ${like})`);
    }
    if (f.memberTypes?.length) where.push(`m.member_type = ANY (${p.add(f.memberTypes)}::text[])`);
    if (f.joined?.[0] != null) where.push(`m.created >= to_timestamp(${p.add(f.joined[0])}::float8 / 1000)`);
    if (f.joined?.[1] != null) where.push(`m.created <= to_timestamp(${p.add(f.joined[1])}::float8 / 1000)`);
    const from = `group_members m JOIN users u ON u.id = m.user_id WHERE ${where.join(' AND ')}`;
    const order = `${MEMBER_SORT[f.sortField]} ${f.sortOrder === 'desc' ? 'DESC' : 'ASC'}, lower(u.username)`;
    return this.page<MemberRow>(
      `SELECT u.id AS user_id, u.username, u.full_name, u.org_id, m.member_type, m.created AS joined, count(*) OVER () AS total
         FROM ${from} ORDER BY ${order}`,
      `SELECT count(*)::int AS total FROM ${from}`,
      p,
      page,
    );
  }

  /** Every member of the group with their membership, by user name. */
  async allMembers(groupId: string): Promise<MemberRow[]> {
    return this.db.query<MemberRow>(
      `SELECT u.id AS user_id, u.username, u.full_name, u.org_id, m.member_type, m.created AS joined
         FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = $1 ORDER BY lower(u.username)`,
      [groupId],
    );
  }

  /** Pending requests to join the group, oldest first; one user's when `username` is given. */
  async applications(groupId: string, username?: string): Promise<ApplicationRow[]> {
    return this.db.query<ApplicationRow>(
      `SELECT u.username, u.full_name, a.created AS received
         FROM group_applications a JOIN users u ON u.id = a.user_id
        WHERE a.group_id = $1 AND ($2::text IS NULL OR lower(u.username) = lower($2))
        ORDER BY a.created, u.username`,
      [groupId, username ?? null],
    );
  }

  /** The user's unexpired invitations with their groups, newest first; one of them when `id` is given. */
  async invitations(userId: string, id?: string): Promise<InvitationRow[]> {
    return this.db.query<InvitationRow>(
      `SELECT g.*, u.username AS owner, NULL::text AS member_type, 0 AS applications,
              i.id AS inv_id, i.role AS inv_role, i.expires AS inv_expires, i.created AS inv_created,
              iu.username AS inv_username, fu.username AS from_username, fu.full_name AS from_full_name
         FROM group_invitations i JOIN users iu ON iu.id = i.user_id
         JOIN groups g ON g.id = i.group_id JOIN users u ON u.id = g.owner_id
         LEFT JOIN users fu ON fu.id = i.from_user_id
        WHERE i.user_id = $1 AND i.expires > now() AND ($2::text IS NULL OR i.id = $2)
        ORDER BY i.created DESC, i.id`,
      [userId, id ?? null],
    );
  }

  /** A page of `sql` (which selects a `total` window count); past the last page the total is counted on its own. */
  private async page<T>(sql: string, countSql: string, p: SqlParams, page: Page): Promise<{ total: number; rows: T[] }> {
    const n = p.values.length;
    const rows = await this.db.query<T & { total: string }>(`${sql} OFFSET $${n + 1} LIMIT $${n + 2}`, [
      ...p.values,
      page.start - 1,
      page.num,
    ]);
    if (rows.length || page.start === 1) return { total: rows.length ? Number(rows[0].total) : 0, rows };
    const [{ total }] = await this.db.query<{ total: number }>(countSql, p.values);
    return { total, rows };
  }

  private searchSql(node: GroupSearchNode, p: SqlParams): string {
    switch (node.kind) {
      case 'and':
        return `(${this.searchSql(node.left, p)} AND ${this.searchSql(node.right, p)})`;
      case 'or': {
        // Free-text terms OR'd together are one pattern, so each text is read once (as in the item search).
        const branches = orBranches<GroupSearchNode>(node);
        const text = branches.filter((b) => b.kind === 'term' && b.field === null).map((b) => (b as { value: string }).value);
        const rest = branches.filter((b) => !(b.kind === 'term' && b.field === null)).map((b) => this.searchSql(b, p));
        return `(${[...(text.length ? [textSql(text, p)] : []), ...rest].join(' OR ')})`;
      }
      case 'not':
        return `(NOT ${this.searchSql(node.node, p)})`;
      case 'range':
        return rangeSql(`g.${node.field}`, node, p);
      case 'term':
        return this.termSql(node.field, node.value, p);
    }
  }

  private termSql(field: GroupSearchField | null, value: string, p: SqlParams): string {
    const like = () => p.add(likePattern(value));
    switch (field) {
      case null:
        return textSql([value], p);
      case 'title':
      case 'description':
      case 'snippet':
        return `g.${field} ~* ${p.add(anyOfPattern([value]))}`;
      case 'id':
        return `g.id = ${p.add(value.toLowerCase())}`;
      case 'orgid':
        return `g.org_id = ${p.add(value.toLowerCase())}`;
      case 'owner':
        return `lower(u.username) LIKE lower(${like()})`;
      case 'phone':
        return `g.phone ILIKE ${like()}`;
      case 'tags':
        return `EXISTS (SELECT 1 FROM unnest(g.tags) t WHERE t ILIKE ${like()})`;
      case 'typekeywords':
        return `EXISTS (SELECT 1 FROM unnest(g.type_keywords) t WHERE t ILIKE ${like()})`;
      case 'access':
        // Older clients say `account` for `org`, as createGroup accepts.
        return `g.access = ${p.add(value.toLowerCase() === 'account' ? 'org' : value.toLowerCase())}`;
      case 'isinvitationonly':
        return `g.is_invitation_only = ${p.add(value.toLowerCase() === 'true')}`;
    }
  }
}

function textSql(values: string[], p: SqlParams): string {
  const re = p.add(anyOfPattern(values));
  return `(${TEXT_COLUMNS.map((c) => `${c} ~* ${re}`).join(' OR ')})`;
}

import { Injectable } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { ListingDatabase } from '../core/database/request-pools.module';
import { SqlParams } from '../core/database/sql-params';
import { likePattern, orBranches, rangeSql } from '../core/search/search-sql';
import { UserFields } from './user-json';
import { UserField, UserQueryNode, UserSortField } from './user-query';

export interface UserRow extends UserFields {
  rolePrivileges: string[] | null;
}

export interface UserPage {
  start: number;
  num: number;
  sortField: UserSortField;
  sortOrder: 'asc' | 'desc';
}

const SORT_COLUMN: Record<UserSortField, string> = {
  username: 'lower(u.username)',
  fullname: 'lower(u.full_name)',
  created: 'u.created',
  modified: 'u.modified',
  lastlogin: 'u.last_login',
  role: 'u.role',
};

const RANGE_COLUMN = { created: 'u.created', modified: 'u.modified', lastlogin: 'u.last_login' } as const;

const USER_COLUMNS = `u.id, u.username, u.org_id AS "orgId", u.role, u.role_id AS "roleId", u.full_name AS "fullName",
  u.first_name AS "firstName", u.last_name AS "lastName", u.email, u.description, u.fav_group_id AS "favGroupId", u.disabled,
  u.tags, u.thumbnail, u.access, u.culture, u.region, u.units, u.preferred_view AS "preferredView", u.last_login AS "lastLogin",
  u.created, u.modified, r.privileges AS "rolePrivileges"`;

/**
 * User searches: statements whose cost the request chooses, so they run on the listing pool (statement timeout,
 * per-client shares), as item searches do.
 */
@Injectable()
export class UserListRepository {
  constructor(private readonly db: ListingDatabase) {}

  /** Users of one organisation (its administrators' search). */
  async searchOrg(orgId: string, node: UserQueryNode | undefined, page: UserPage) {
    const p = new SqlParams();
    const where = `u.org_id = ${p.add(orgId)}${node ? ` AND ${this.sql(node, p)}` : ''}`;
    return this.page(where, p, page);
  }

  /**
   * Users whose profile the caller may see (user-json.ts profileView): public ones, their organisation's `org` ones,
   * themselves, and, for the organisation's user administrators, its private ones too.
   */
  async searchCommunity(caller: Caller, orgAdmin: boolean, node: UserQueryNode | undefined, page: UserPage) {
    const p = new SqlParams();
    const org = p.add(caller.orgId);
    const visible = `(u.access = 'public' OR u.id = ${p.add(caller.userId)} OR (u.org_id = ${org} AND ${orgAdmin ? 'TRUE' : `u.access = 'org'`}))`;
    return this.page(node ? `${visible} AND ${this.sql(node, p)}` : visible, p, page);
  }

  private async page(where: string, p: SqlParams, page: UserPage): Promise<{ total: number; rows: UserRow[] }> {
    const dir = page.sortOrder === 'desc' ? 'DESC' : 'ASC';
    // Never signed in sorts as the oldest sign-in.
    const order = `${SORT_COLUMN[page.sortField]} ${dir} ${dir === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}, u.id`;
    const n = p.values.length;
    const from = `users u LEFT JOIN roles r ON r.id = u.role_id`;
    const rows = await this.db.query<UserRow & { total: string }>(
      `SELECT ${USER_COLUMNS}, count(*) OVER () AS total FROM ${from} WHERE ${where} ORDER BY ${order} OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...p.values, page.start - 1, page.num],
    );
    if (rows.length || page.start === 1) return { total: rows.length ? Number(rows[0].total) : 0, rows };
    // Past the last page the window count is gone; count separately so `total` stays right.
    const [{ total }] = await this.db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`, p.values);
    return { total, rows };
  }

  private sql(node: UserQueryNode, p: SqlParams): string {
    switch (node.kind) {
      case 'and':
        return `(${this.sql(node.left, p)} AND ${this.sql(node.right, p)})`;
      case 'or':
        return `(${orBranches(node)
          .map((b) => this.sql(b, p))
          .join(' OR ')})`;
      case 'not':
        return `(NOT ${this.sql(node.node, p)})`;
      case 'range':
        return rangeSql(RANGE_COLUMN[node.field], node, p);
      case 'term':
        return this.termSql(node.field, node.value, p);
    }
  }

  private termSql(field: UserField | null, value: string, p: SqlParams): string {
    const like = (contains: boolean) => p.add(contains ? `%${likePattern(value)}%` : likePattern(value));
    switch (field) {
      case null: {
        // A bare term: anywhere in the user name, full name, description or a tag, case-insensitively.
        const v = like(true);
        return `(u.username ILIKE ${v} OR u.full_name ILIKE ${v} OR u.description ILIKE ${v} OR EXISTS (SELECT 1 FROM unnest(u.tags) t WHERE t ILIKE ${v}))`;
      }
      case 'username':
        return `u.username ILIKE ${like(false)}`;
      case 'fullname':
        return `u.full_name ILIKE ${like(true)}`;
      case 'firstname':
        return `u.first_name ILIKE ${like(true)}`;
      case 'lastname':
        return `u.last_name ILIKE ${like(true)}`;
      case 'description':
        return `u.description ILIKE ${like(true)}`;
      case 'tags':
        return `EXISTS (SELECT 1 FROM unnest(u.tags) t WHERE t ILIKE ${like(false)})`;
      case 'email':
        return `u.email ILIKE ${like(false)}`;
      case 'orgid':
        return `u.org_id = ${p.add(value.toLowerCase())}`;
      case 'role': {
        // A built-in role name, or a custom role's id.
        const v = p.add(value.toLowerCase());
        return `(u.role = ${v} OR u.role_id = ${v})`;
      }
      case 'provider':
        // Every account here signs in with the portal's own user store: ArcGIS's provider 'arcgis'.
        return value.toLowerCase() === 'arcgis' ? 'TRUE' : 'FALSE';
      default:
        throw new Error(`No SQL for user search field ${field}`);
    }
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BuiltInRole } from '../core/auth/caller';
import { newId } from '../core/ids';
import { OrgEntity, RoleEntity, UserEntity } from './identity.entities';
import { TokenOwnerRow } from './sign-in.repository';
import { Outbox, OutboxEvent } from '../core/events/outbox.repository';

export interface MembershipRow {
  id: string;
  title: string;
  access: string;
  owner: string;
  member_type: 'owner' | 'admin' | 'member';
}

/** What createUser takes: the columns with no default. */
export type NewUser = Pick<
  UserEntity,
  'username' | 'orgId' | 'role' | 'roleId' | 'fullName' | 'firstName' | 'lastName' | 'email' | 'description' | 'passwordHash'
>;

/** The profile columns `community/users/<u>/update` may change (null clears an optional one). */
export type ProfilePatch = Partial<
  Pick<
    UserEntity,
    | 'fullName'
    | 'firstName'
    | 'lastName'
    | 'description'
    | 'tags'
    | 'thumbnail'
    | 'access'
    | 'culture'
    | 'region'
    | 'units'
    | 'preferredView'
  >
>;

@Injectable()
export class IdentityRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  countUsers(): Promise<number> {
    return this.db.getRepository(UserEntity).count();
  }

  /** User names are unique regardless of case (index on lower(username)). */
  findUser(username: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).createQueryBuilder('u').where('lower(u.username) = lower(:username)', { username }).getOne();
  }

  findUserById(id: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).findOneBy({ id });
  }

  findOrg(id: string): Promise<OrgEntity | null> {
    return this.db.getRepository(OrgEntity).findOneBy({ id });
  }

  findRole(id: string): Promise<RoleEntity | null> {
    return this.db.getRepository(RoleEntity).findOneBy({ id });
  }

  findFirstOrg(): Promise<OrgEntity | null> {
    return this.db.getRepository(OrgEntity).createQueryBuilder('o').orderBy('o.created', 'ASC').getOne();
  }

  async createOrg(name: string, urlKey: string): Promise<OrgEntity> {
    return this.db.getRepository(OrgEntity).save({ id: newId(), name, urlKey });
  }

  /** `event` (the creation's, given the new user's id) is raised in the same transaction. */
  async createUser(user: NewUser, event?: (id: string) => OutboxEvent): Promise<UserEntity> {
    return this.db.transaction(async (m) => {
      const saved = await m.getRepository(UserEntity).save({ ...user, id: newId(), disabled: false, favGroupId: null });
      if (event) await Outbox.raise(m, event(saved.id));
      return saved;
    });
  }

  async setUserRole(userId: string, role: BuiltInRole, roleId: string | null): Promise<void> {
    await this.db.getRepository(UserEntity).update({ id: userId }, { role, roleId });
  }

  /** Returns null when the organisation already has a role of that name. */
  async createRole(orgId: string, name: string, description: string, privileges: string[]): Promise<RoleEntity | null> {
    const rows: RoleEntity[] = await this.db.query(
      `INSERT INTO roles (id, org_id, name, description, privileges) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, name) DO NOTHING RETURNING id, name, description`,
      [newId(), orgId, name, description, privileges],
    );
    return rows[0] ?? null;
  }

  async setRolePrivileges(roleId: string, privileges: string[]): Promise<void> {
    await this.db.getRepository(RoleEntity).update({ id: roleId }, { privileges });
  }

  /** The user a live (unrevoked) token belongs to, with what they hold, so a revocation can be checked against them. */
  async findTokenUser(
    tokenHash: Buffer,
  ): Promise<Pick<TokenOwnerRow, 'client' | 'user_id' | 'org_id' | 'role' | 'role_privileges'> | null> {
    const rows = await this.db.query(
      `SELECT t.client, u.id AS user_id, u.org_id, u.role, r.privileges AS role_privileges
         FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN roles r ON r.id = u.role_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  /**
   * Deletes up to `batch` expired tokens (their derived tokens, which never outlive them, go by cascade). Rows are
   * picked by ctid with SKIP LOCKED, so several API processes purging at once split the work instead of waiting.
   */
  async purgeExpiredTokens(batch: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.db.query(
      `DELETE FROM tokens WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM tokens WHERE expires_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED))`,
      [batch],
    );
    return count;
  }

  /** Revokes a token; an admin may revoke any token of their org, others only their own. Returns whether one was revoked. */
  async revokeToken(tokenHash: Buffer, byUserId: string, orgWideForOrg: string | null): Promise<boolean> {
    // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
    const [rows]: [unknown[], number] = await this.db.query(
      `UPDATE tokens t SET revoked_at = now()
         FROM users u
        WHERE t.token_hash = $1 AND u.id = t.user_id AND t.revoked_at IS NULL
          AND (t.user_id = $2 OR u.org_id = $3)
        RETURNING t.id`,
      [tokenHash, byUserId, orgWideForOrg],
    );
    return rows.length > 0;
  }

  /** Creates the first organisation and its administrator, unless some user exists already. Returns whether it did. */
  async bootstrapAdmin(orgName: string, username: string, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
      const [{ n }] = await m.query('SELECT count(*)::int AS n FROM users');
      if (n > 0) return false;
      const orgId = newId();
      await m.insert(OrgEntity, { id: orgId, name: orgName, urlKey: 'default' });
      await m.insert(UserEntity, {
        id: newId(),
        username,
        orgId,
        role: 'org_admin',
        roleId: null,
        fullName: username,
        firstName: '',
        lastName: '',
        email: '',
        description: '',
        passwordHash,
        disabled: false,
        favGroupId: null,
      });
      return true;
    });
  }

  /** Changes profile columns (and `modified`); returns the thumbnail name it replaced, for the caller to remove the file. */
  async updateProfile(userId: string, patch: ProfilePatch, event?: OutboxEvent): Promise<{ previousThumbnail: string | null }> {
    return this.db.transaction(async (m) => {
      const [before]: { thumbnail: string | null }[] = await m.query(`SELECT thumbnail FROM users WHERE id = $1 FOR NO KEY UPDATE`, [
        userId,
      ]);
      // An update that names no field changes nothing (TypeORM refuses an empty SET).
      if (Object.keys(patch).length) await m.getRepository(UserEntity).update({ id: userId }, patch);
      if (event && before) await Outbox.raise(m, event);
      return { previousThumbnail: before?.thumbnail ?? null };
    });
  }

  async findProperties(userId: string): Promise<Record<string, unknown>> {
    const [row]: { properties: Record<string, unknown> }[] = await this.db.query(`SELECT properties FROM users WHERE id = $1`, [userId]);
    return row?.properties ?? {};
  }

  /**
   * Merges `properties` into the user's at the top level (a key set to null is removed), as setProperties does;
   * false when the result would be longer than `maxChars` as JSON text, and nothing changed.
   */
  async mergeProperties(userId: string, properties: Record<string, unknown>, maxChars: number): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.db.query(
      `WITH merged AS (
         SELECT COALESCE((SELECT jsonb_object_agg(k, v) FROM jsonb_each(u.properties || $2::jsonb) AS e(k, v) WHERE v <> 'null'::jsonb),
                         '{}'::jsonb) AS p
           FROM users u WHERE u.id = $1)
       UPDATE users SET properties = merged.p FROM merged WHERE users.id = $1 AND length(merged.p::text) <= $3 RETURNING 1`,
      [userId, JSON.stringify(properties), maxChars],
    );
    return rows.length > 0;
  }

  /** Merges `settings` into the organisation's own settings (portals/self/settings/update). */
  async mergeOrgSettings(orgId: string, settings: Record<string, unknown>): Promise<void> {
    await this.db.query(`UPDATE orgs SET settings = settings || $2::jsonb WHERE id = $1`, [orgId, JSON.stringify(settings)]);
  }

  /** The users of `orgId` among `names` (any case), as stored; a name not in the organisation is not in the answer. */
  findOrgUsers(orgId: string, names: string[]): Promise<{ id: string; username: string }[]> {
    return this.db.query(
      `SELECT id, username FROM users WHERE org_id = $1 AND lower(username) = ANY (SELECT lower(n) FROM unnest($2::text[]) n)`,
      [orgId, names],
    );
  }

  listMemberships(userId: string): Promise<MembershipRow[]> {
    return this.db.query(
      `SELECT g.id, g.title, g.access, o.username AS owner, m.member_type
         FROM group_members m JOIN groups g ON g.id = m.group_id JOIN users o ON o.id = g.owner_id
        WHERE m.user_id = $1 ORDER BY g.title, g.id`,
      [userId],
    );
  }
}

/** Serialises first-start admin creation between several API instances. */
export const BOOTSTRAP_LOCK = 0x61726367;

import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { BuiltInRole } from '../core/auth/caller';
import { AuthDatabase } from '../core/database/request-pools.module';
import { TokenEntity, UserEntity } from './identity.entities';

export interface TokenOwnerRow {
  token_id: string;
  client: string;
  /** The token's binding (referer or canonical IP). */
  binding: string | null;
  expires_at: Date;
  depth: number;
  user_id: string;
  username: string;
  org_id: string;
  role: BuiltInRole;
  role_id: string | null;
  role_privileges: string[] | null;
}

const TOKEN_OWNER_SQL = `SELECT t.id AS token_id, t.client, t.referer AS binding, t.expires_at, t.depth, u.id AS user_id, u.username, u.org_id, u.role, u.role_id, r.privileges AS role_privileges
   FROM tokens t
   JOIN users u ON u.id = t.user_id AND NOT u.disabled
   LEFT JOIN roles r ON r.id = u.role_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now()`;

/**
 * The statements of sign-in and token checks, apart from IdentityRepository because they run on the API's auth pool
 * (core/database/request-pools.module.ts), which the worker does not open: the worker's jobs read users through
 * IdentityRepository on the main pool.
 */
@Injectable()
export class SignInRepository {
  constructor(private readonly auth: AuthDatabase) {}

  /** Sign-in's read, on the auth pool (core/database/request-pools.module.ts): no other work can take its connections. */
  async findUserWithPassword(username: string): Promise<Pick<UserEntity, 'id' | 'username' | 'passwordHash' | 'disabled'> | null> {
    const rows = await this.auth.db.query(
      `SELECT id, username, password_hash AS "passwordHash", disabled FROM users WHERE lower(username) = lower($1)`,
      [username],
    );
    return rows[0] ?? null;
  }

  /**
   * On the auth pool, as sign-in's read is. A sign-in (not a derived token) also stamps the user's lastLogin, in the
   * same statement, so it costs no round trip.
   */
  async insertToken(
    token: Pick<TokenEntity, 'tokenHash' | 'userId' | 'client' | 'referer' | 'expiresAt' | 'parentTokenId' | 'depth'>,
    signIn: boolean,
  ): Promise<void> {
    await this.auth.db.query(
      `WITH t AS (
         INSERT INTO tokens (token_hash, user_id, client, referer, expires_at, parent_token_id, depth) VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING user_id)
       UPDATE users SET last_login = now() WHERE $8 AND id = (SELECT user_id FROM t)`,
      [token.tokenHash, token.userId, token.client, token.referer, token.expiresAt, token.parentTokenId, token.depth, signIn],
    );
  }

  /**
   * One round trip per request: the token (with its binding), its user and the user's custom role. Every signed-in
   * request asks this, so it runs as a named statement on the auth pool's pg pool (TypeORM's query() cannot name one):
   * PostgreSQL parses it once per connection and soon keeps a generic plan, where an unnamed statement is parsed and
   * planned on every request.
   */
  async findTokenOwner(tokenHash: Buffer): Promise<TokenOwnerRow | null> {
    const pool = (this.auth.db.driver as PostgresDriver).master as Pool;
    const { rows } = await pool.query<TokenOwnerRow>({ name: 'token_owner', text: TOKEN_OWNER_SQL, values: [tokenHash] });
    return rows[0] ?? null;
  }
}

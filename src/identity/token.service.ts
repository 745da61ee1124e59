import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { builtInPrivileges, Caller, isAdminFor, mayManageUser, Privilege } from './caller';
import { IdentityRepository } from './identity.repository';
import { dummyHash, verifyPassword } from './passwords';
import { GenerateTokenDto } from './identity.dto';

/** Tokens are random 256-bit strings; only their SHA-256 is stored, so a database leak yields no usable token. */
const hashToken = (token: string) => createHash('sha256').update(token).digest();

const DEFAULT_EXPIRATION_MINUTES = 60;

@Injectable()
export class TokenService {
  constructor(
    private readonly repo: IdentityRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Username and password, or (federated-server flow) the caller's portal token plus `serverUrl`: our services
   * accept portal tokens, so the exchange hands out a fresh token for the same user.
   */
  async generate(p: GenerateTokenDto, requestIp: string | undefined, ssl: boolean, caller?: Caller) {
    if (p.client === 'referer' && !p.referer) {
      throw Errors.badRequest('Unable to generate token.', ["'referer' must be specified when client is 'referer'."]);
    }
    const userId = p.serverUrl && !p.username ? this.requireCaller(caller) : await this.checkPassword(p.username, p.password);
    const minutes = Math.min(p.expiration ?? DEFAULT_EXPIRATION_MINUTES, this.config.limits.tokenMaxMinutes);
    const token = randomBytes(32).toString('base64url');
    const expires = Date.now() + minutes * 60_000;
    await this.repo.insertToken({
      tokenHash: hashToken(token),
      userId,
      client: p.client ?? 'requestip',
      referer: p.client === 'referer' ? p.referer! : p.client === 'ip' ? (p.ip ?? null) : (requestIp ?? null),
      expiresAt: new Date(expires),
    });
    // `expires` must be a JSON number: the client builds a Date from it (arcgis-compat.md 2.2).
    return { token, expires, ssl };
  }

  private requireCaller(caller: Caller | undefined): string {
    if (!caller) throw Errors.badRequest('Unable to generate token.', ["'token' is required with 'serverUrl' when no username and password are given."]);
    return caller.userId;
  }

  private async checkPassword(username: string, password: string): Promise<string> {
    const user = await this.repo.findUserWithPassword(username);
    // User names are case-sensitive in generateToken; the unique index makes the row unique regardless of case.
    const ok = user ? await verifyPassword(password, user.passwordHash) : await verifyPassword(password, await dummyHash());
    if (!user || !ok || user.username !== username || user.disabled) {
      throw Errors.badRequest('Unable to generate token.', ['Invalid username or password.']);
    }
    return user.id;
  }

  async resolve(token: string): Promise<Caller> {
    const row = await this.repo.findTokenOwner(hashToken(token));
    if (!row) throw Errors.invalidToken();
    return {
      userId: row.user_id,
      username: row.username,
      orgId: row.org_id,
      role: row.role,
      roleId: row.role_id,
      privileges: row.role_privileges ?? builtInPrivileges(row.role),
    };
  }

  /**
   * Your own tokens; as a user administrator, those of users in your organisation who hold nothing you lack (a lesser
   * role must not lock its superiors out). Anyone else's token gets the same answer as one that does not exist.
   */
  async revoke(caller: Caller, token: string): Promise<{ success: boolean }> {
    const hash = hashToken(token);
    const owner = await this.repo.findTokenUser(hash);
    const own = owner?.user_id === caller.userId;
    const asAdmin = !!owner && !own && isAdminFor(caller, owner.org_id, Privilege.AdminUsers);
    if (asAdmin && !mayManageUser(caller, { orgId: owner.org_id, privileges: owner.role_privileges ?? builtInPrivileges(owner.role) })) {
      throw Errors.forbidden('You cannot revoke the tokens of a user who holds privileges you do not hold.');
    }
    const revoked = (own || asAdmin) && (await this.repo.revokeToken(hash, caller.userId, asAdmin ? caller.orgId : null));
    if (!revoked) throw Errors.badRequest('Unable to revoke token.', ['The token does not exist, has been revoked, or is not yours to revoke.']);
    return { success: true };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { builtInPrivileges, Caller, isAdminFor, mayManageUser, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { AuthDatabase } from '../core/database/request-pools.module';
import { Errors } from '../core/errors/arcgis-error';
import { IdentityRepository } from './identity.repository';
import { configureHashConcurrency, dummyHash, verifyPassword } from './passwords';
import { GenerateTokenDto } from './identity.dto';
import { SignInRepository, TokenOwnerRow } from './sign-in.repository';
import { SignInThrottle } from './signin-throttle';
import { bindingMatches, canonicalIp, RequestOrigin } from './token-binding';

/** Tokens are random 256-bit strings; only their SHA-256 is stored, so a database leak yields no usable token. */
const hashToken = (token: string) => createHash('sha256').update(token).digest();

const DEFAULT_EXPIRATION_MINUTES = 60;
/** How many times a token may be exchanged for a derived one in a chain; bounds the revoke/delete cascades. */
const MAX_DERIVATION_DEPTH = 4;

const refuse = (detail: string) => Errors.badRequest('Unable to generate token.', [detail]);

/**
 * The `client` of the pages' own tokens (bound to the request's address as requestip is). They count only from the
 * pages' cookie and the cookie counts only for them: a page token copied out of a cookie (a service on another port of
 * the host receives it) is refused as a `token` parameter or Bearer header, and an ordinary token planted as the cookie
 * never becomes a page session.
 */
export const PAGE_CLIENT = 'page';

/** Where a token came from: the request itself (parameter, header), or the pages' session cookie. */
export type TokenSource = 'request' | 'page-cookie';

@Injectable()
export class TokenService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly signIns: SignInRepository,
    private readonly throttle: SignInThrottle,
    private readonly auth: AuthDatabase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    configureHashConcurrency(config.signin.hashConcurrency);
  }

  /**
   * Username and password, or (federated-server flow) the caller's portal token plus `serverUrl`: our services
   * accept portal tokens, so the exchange hands out a token for the same user that never outlives the one it came
   * from, dies with it, and keeps its binding.
   */
  async generate(p: GenerateTokenDto, origin: RequestOrigin, ssl: boolean, parentToken?: string, forPages = false) {
    const parent = p.serverUrl && !p.username ? await this.parentOf(parentToken, origin) : null;
    // A derived token is bound where its parent is, whatever it asks for: otherwise one request from the bound address
    // (a page the victim opens can send it) would mint a token usable from anywhere.
    const client = forPages ? PAGE_CLIENT : parent?.binding ? parent.client : (p.client ?? 'requestip');
    const binding = this.bindingFor(client, p, origin, parent);
    const userId = parent ? parent.user_id : await this.checkPassword(p.username, p.password, origin.ip);
    const minutes = Math.min(p.expiration ?? DEFAULT_EXPIRATION_MINUTES, this.config.limits.tokenMaxMinutes);
    let expires = Date.now() + minutes * 60_000;
    if (parent) expires = Math.min(expires, new Date(parent.expires_at).getTime());
    const token = randomBytes(32).toString('base64url');
    await this.auth.run(origin.ip, () =>
      this.signIns.insertToken(
        {
          tokenHash: hashToken(token),
          userId,
          client,
          referer: binding,
          expiresAt: new Date(expires),
          parentTokenId: parent?.token_id ?? null,
          depth: parent ? parent.depth + 1 : 0,
        },
        !parent,
      ),
    );
    // `expires` must be a JSON number: the client builds a Date from it, and a numeric string makes an Invalid Date,
    // so it would fetch a new token before every request.
    return { token, expires, ssl };
  }

  /** What the new token is bound to; a derived token keeps its parent's binding. */
  private bindingFor(client: string, p: GenerateTokenDto, origin: RequestOrigin, parent: TokenOwnerRow | null): string {
    if (parent?.binding) return parent.binding;
    if (client === 'referer') {
      if (!p.referer) throw refuse("'referer' must be specified when client is 'referer'.");
      return p.referer;
    }
    if (client === 'ip') {
      const ip = canonicalIp(p.ip);
      if (!ip) throw refuse("'ip' must be an IPv4 or IPv6 address when client is 'ip'.");
      return ip;
    }
    const ip = canonicalIp(origin.ip);
    if (!ip) throw refuse('The request has no client address to bind the token to; use client=referer.');
    return ip;
  }

  private async parentOf(token: string | undefined, origin: RequestOrigin): Promise<TokenOwnerRow> {
    if (!token) throw refuse("'token' is required with 'serverUrl' when no username and password are given.");
    const parent = await this.lookup(token, origin);
    if (parent.depth >= MAX_DERIVATION_DEPTH) throw refuse('This token was itself derived too many times; sign in again.');
    return parent;
  }

  private async checkPassword(username: string, password: string, ip: string | undefined): Promise<string> {
    const address = canonicalIp(ip) ?? 'unknown';
    // Refused without hashing while throttled, checked again once a hash slot is ours, and the outcome recorded
    // before the slot passes on: however many attempts queue up, only the slots' worth can slip past a closing throttle.
    await this.throttle.assertOpen(username, address);
    const user = await this.auth.run(ip, () => this.signIns.findUserWithPassword(username));
    // User names are case-sensitive in generateToken; the unique index makes the row unique regardless of case.
    const valid = (matched: boolean) => !!user && matched && user.username === username && !user.disabled;
    const matched = await verifyPassword(password, user?.passwordHash ?? dummyHash(), {
      before: () => this.throttle.assertOpen(username, address),
      after: (m) => (valid(m) ? this.throttle.succeeded(username, address) : this.throttle.failed(username, address)),
    });
    if (!valid(matched)) throw refuse('Invalid username or password.');
    return user!.id;
  }

  /** The token's row, if it is valid and used from where it is bound to; otherwise 498 (what ArcGIS answers). */
  private async lookup(token: string, origin: RequestOrigin, source: TokenSource = 'request'): Promise<TokenOwnerRow> {
    const row = await this.auth.run(origin.ip, () => this.signIns.findTokenOwner(hashToken(token)));
    if (!row || !bindingMatches(row.client, row.binding, origin)) throw Errors.invalidToken();
    if ((row.client === PAGE_CLIENT) !== (source === 'page-cookie')) throw Errors.invalidToken();
    return row;
  }

  async resolve(token: string, origin: RequestOrigin, source: TokenSource = 'request'): Promise<Caller> {
    const row = await this.lookup(token, origin, source);
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
    if (!revoked)
      throw Errors.badRequest('Unable to revoke token.', ['The token does not exist, has been revoked, or is not yours to revoke.']);
    return { success: true };
  }

  /**
   * Ends a page session: its token is revoked by whoever holds the cookie, from any address (a sign-out after the
   * browser's address changed must still end it). Only page tokens: an ordinary token planted as the cookie is left be.
   */
  async revokePageToken(token: string): Promise<void> {
    const hash = hashToken(token);
    const owner = await this.repo.findTokenUser(hash);
    if (owner?.client === PAGE_CLIENT) await this.repo.revokeToken(hash, owner.user_id, null);
  }
}

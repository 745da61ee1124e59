import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  ALL_PRIVILEGES,
  BuiltInRole,
  builtInPrivileges,
  Caller,
  can,
  holdsAll,
  isAdminFor,
  isFullAdmin,
  mayManageUser,
  Privilege,
} from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventBy } from '../core/events/outbox.repository';
import { requiredJsonParam } from '../core/http/param-values';
import { ID_PATTERN } from '../core/ids';
import { OrgEntity, UserEntity } from './identity.entities';
import { CreateRoleDto, CreateUserDto, PortalSettingsUpdateDto, UpdateUserRoleDto } from './identity.dto';
import { DEFAULT_SETTINGS, informationalBanner } from './org-settings';
import { IdentityRepository } from './identity.repository';
import { hashPassword } from './passwords';
import { privateUser, profileView, publicUser } from './user-json';
import { UserCallers } from './user-callers';

const BUILT_IN: readonly BuiltInRole[] = ['org_admin', 'org_publisher', 'org_user'];

/** The built-in role a custom role sits on, as ArcGIS derives it from the privileges. */
function baseRoleFor(privileges: string[]): BuiltInRole {
  if (privileges.some((p) => p.startsWith('portal:admin:'))) return 'org_admin';
  if (privileges.some((p) => p.startsWith('portal:publisher:'))) return 'org_publisher';
  return 'org_user';
}

const ms = (d: Date) => d.getTime();

@Injectable()
export class IdentityService implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdentityService.name);

  constructor(
    private readonly repo: IdentityRepository,
    private readonly callers: UserCallers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.admin;
    if (!admin) return;
    const created = await this.repo.bootstrapAdmin('Organization', admin.username, await hashPassword(admin.password));
    if (created) this.logger.log(`created the first organisation administrator '${admin.username}'`);
  }

  async requireUser(username: string): Promise<UserEntity> {
    const user = await this.repo.findUser(username);
    if (!user) throw Errors.userNotFound(username);
    return user;
  }

  /**
   * The user a `content/users/<name>/...` path names, when the caller acts for them: as themselves, or as an
   * administrator of their organisation holding `privilege` (null: no one but the user). A name that is no user gets
   * the refusal another user's name gets (403 with `refusal`, as ArcGIS answers for someone else's content), so the
   * path does not tell which names exist.
   */
  async actingFor(caller: Caller, name: string, privilege: string | null, refusal: string): Promise<UserEntity> {
    const user = await this.repo.findUser(name);
    if (user && (user.id === caller.userId || (privilege !== null && isAdminFor(caller, user.orgId, privilege)))) return user;
    throw Errors.forbidden(refusal);
  }

  /** A user of `orgId`; a user of another organisation is refused as one that does not exist, so none shows through. */
  async userOfOrg(name: string, orgId: string): Promise<UserEntity> {
    const user = await this.repo.findUser(name);
    if (!user || user.orgId !== orgId) throw Errors.userNotFound(name.slice(0, 64));
    return user;
  }

  /**
   * The users of `orgId` named in `names` (any case); names that are not users of the organisation are returned apart,
   * as requested, for the caller to refuse.
   */
  async orgUsers(orgId: string, names: string[]): Promise<{ found: { id: string; username: string }[]; missing: string[] }> {
    const found = await this.repo.findOrgUsers(orgId, names);
    const known = new Set(found.map((u) => u.username.toLowerCase()));
    return { found, missing: names.filter((n) => !known.has(n.toLowerCase())) };
  }

  /** What `user` holds now (UserCallers). */
  privilegesOf(user: Pick<UserEntity, 'role' | 'roleId'>): Promise<string[]> {
    return this.callers.privilegesOf(user);
  }

  /** The user as a caller, to ask what they themselves may see (an export lands only with someone who may read it). */
  callerFor(user: UserEntity): Promise<Caller> {
    return this.callers.callerFor(user);
  }

  /** Role changes (and any future disable or delete) are for administrators who hold all the user holds. */
  async assertMayManage(caller: Caller, user: UserEntity): Promise<void> {
    if (!mayManageUser(caller, { orgId: user.orgId, privileges: await this.privilegesOf(user) })) {
      throw Errors.forbidden(`You cannot manage '${user.username}': that user holds privileges you do not hold.`);
    }
  }

  async self(caller: Caller) {
    const user = await this.requireUser(caller.username);
    return this.fullUser(user, caller);
  }

  /**
   * The record as `access` lets the caller see it (user-json.ts, profileView): whole for the user and their
   * administrators, the public part for those the profile is shared with; to anyone else the user does not exist.
   */
  async user(caller: Caller | undefined, username: string) {
    const user = await this.repo.findUser(username);
    const view = user ? profileView(caller, user) : null;
    if (!user || !view) throw Errors.userNotFound(username);
    if (caller && caller.userId === user.id) return this.fullUser(user, caller);
    if (view === 'full') return this.fullUser(user, { privileges: await this.privilegesOf(user) });
    return publicUser(user);
  }

  /** `root` is the public root (scheme, host, context path) the client reached us on. */
  async portalSelf(caller: Caller | undefined, root: string) {
    const org = caller ? await this.repo.findOrg(caller.orgId) : await this.repo.findFirstOrg();
    return this.portalJson(org, caller, root);
  }

  /** `portals/<id>`: as portals/self answers, when the id is the caller's organisation ('self' or its id). */
  async portal(caller: Caller | undefined, portalId: string, root: string) {
    return this.portalJson(await this.orgOfPortal(caller, portalId), caller, root);
  }

  /**
   * The organisation a `portals/<id>` path names: 'self', or the caller's own organisation's id (anonymous callers:
   * the portal's default organisation, the one portals/self shows them). Any other id is refused alike, whether or not
   * it names an organisation, so nothing about other organisations shows through.
   */
  async orgOfPortal(caller: Caller | undefined, portalId: string): Promise<OrgEntity> {
    const org = caller ? await this.repo.findOrg(caller.orgId) : await this.repo.findFirstOrg();
    if (org && (portalId === 'self' || portalId.toLowerCase() === org.id)) return org;
    throw Errors.badRequest('Portal does not exist or is inaccessible.', [`No organization '${portalId.slice(0, 64)}' for this user.`]);
  }

  /** `portals/<id>/settings`: what the organisation's administrators set, over the defaults of every setting. */
  async settings(caller: Caller | undefined, portalId: string) {
    const org = await this.orgOfPortal(caller, portalId);
    return { ...DEFAULT_SETTINGS, ...org.settings };
  }

  /**
   * `portals/<id>/subscriptionInfo` (getSubscriptionInfo), for the organisation's members: this portal runs on its own
   * host, so its subscription is ArcGIS Enterprise's kind ('In House'), always active, with no end date and no credits.
   */
  async subscriptionInfo(caller: Caller, portalId: string) {
    const org = await this.orgOfPortal(caller, portalId);
    return { id: org.id, type: 'In House', state: 'active', companionOrganizations: [] };
  }

  /** `portals/<id>/settings/update`: full administrators change the settings this portal has (informationalBanner). */
  async updateSettings(caller: Caller, portalId: string, p: PortalSettingsUpdateDto) {
    const org = await this.orgOfPortal(caller, portalId);
    if (!isFullAdmin(caller)) throw Errors.forbidden("Only the organization's administrators may change its settings.");
    if (p.informationalBanner === undefined)
      throw Errors.badRequest('Invalid or missing input parameters.', [
        "Nothing to update: the settings that can be changed here are 'informationalBanner'.",
      ]);
    await this.repo.mergeOrgSettings(org.id, { informationalBanner: informationalBanner(p.informationalBanner) });
    return { success: true };
  }

  private async portalJson(org: OrgEntity | null, caller: Caller | undefined, root: string) {
    const base = {
      id: org?.id ?? null,
      name: org?.name ?? 'Portal',
      portalName: 'ArcGIS-compatible Portal',
      isPortal: true,
      urlKey: org?.urlKey,
      portalHostname: root.replace(/^https?:\/\//, ''),
      allSSL: root.startsWith('https:'),
      supportsHostedServices: true,
      currentVersion: '2024.1',
      // Left empty on purpose: arcgis-rest-js sends no-cors pre-requests to every domain listed here.
      authorizedCrossOriginDomains: [],
      created: org ? ms(org.created) : undefined,
    };
    return caller ? { ...base, user: await this.self(caller) } : base;
  }

  async createUser(caller: Caller, p: CreateUserDto) {
    if (!can(caller, Privilege.AdminUsers)) throw Errors.forbidden('Only organisation administrators may create users.');
    const { role, roleId } = await this.resolveRole(caller, p.role ?? 'org_user');
    if (await this.repo.findUser(p.username)) {
      throw Errors.badRequest('Unable to create user.', [`The user name '${p.username}' is already taken.`]);
    }
    const user = await this.repo.createUser(
      {
        username: p.username,
        orgId: caller.orgId,
        role,
        roleId,
        fullName: p.fullname ?? [p.firstname, p.lastname].filter(Boolean).join(' '),
        firstName: p.firstname ?? '',
        lastName: p.lastname ?? '',
        email: p.email ?? '',
        description: p.description ?? '',
        passwordHash: await hashPassword(p.password),
      },
      () =>
        eventBy(caller, 'user', 'add', [p.username], { role, fullName: p.fullname ?? [p.firstname, p.lastname].filter(Boolean).join(' ') }),
    );
    return { status: 'success', username: user.username, id: user.id };
  }

  async createRole(caller: Caller, p: CreateRoleDto) {
    if (!can(caller, Privilege.AdminRoles)) throw Errors.forbidden('Only organisation administrators may create roles.');
    const role = await this.repo.createRole(caller.orgId, p.name, p.description ?? '', []);
    if (!role) throw Errors.badRequest('Unable to create role.', [`A role named '${p.name}' already exists.`]);
    return { success: true, id: role.id, name: role.name, description: role.description };
  }

  async setPrivileges(caller: Caller, roleId: string, raw: string) {
    if (!can(caller, Privilege.AdminRoles)) throw Errors.forbidden('Only organisation administrators may change roles.');
    const role = ID_PATTERN.test(roleId) ? await this.repo.findRole(roleId) : null;
    if (!role || role.orgId !== caller.orgId)
      throw Errors.badRequest('Role does not exist.', [`No role '${roleId}' in this organization.`]);
    // Any JSON, so that null or an array gets the message below, which shows the shape wanted.
    const parsed = requiredJsonParam('privileges', raw, 'any');
    const list = (parsed as { privileges?: unknown } | null)?.privileges;
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) {
      throw Errors.badRequest('\'privileges\' must be a JSON object {"privileges":["..."]}.');
    }
    const unknown = list.filter((x) => !ALL_PRIVILEGES.includes(x));
    if (unknown.length)
      throw Errors.badRequest(
        'Unknown privileges.',
        unknown.map((x) => `Unknown privilege '${x}'.`),
      );
    // Its holders lose what the role has now: only someone holding all of it may reshape it.
    if (!holdsAll(caller, role.privileges)) throw Errors.forbidden('You cannot change a role that holds privileges you do not hold.');
    this.assertGrantable(caller, list as string[]);
    await this.repo.setRolePrivileges(role.id, [...new Set(list as string[])]);
    return { success: true };
  }

  async updateUserRole(caller: Caller, p: UpdateUserRoleDto) {
    if (!can(caller, Privilege.AdminUsers)) throw Errors.forbidden('Only organisation administrators may change roles.');
    const user = await this.repo.findUser(p.user);
    if (!user || user.orgId !== caller.orgId) throw Errors.userNotFound(p.user);
    await this.assertMayManage(caller, user);
    const { role, roleId } = await this.resolveRole(caller, p.role);
    await this.repo.setUserRole(user.id, role, roleId);
    return { success: true, username: user.username };
  }

  /** A role the caller may hand out: only privileges the caller holds, so no one can grant themselves more. */
  private async resolveRole(caller: Caller, value: string): Promise<{ role: BuiltInRole; roleId: string | null }> {
    let resolved: { role: BuiltInRole; roleId: string | null; privileges: string[] };
    if ((BUILT_IN as readonly string[]).includes(value)) {
      resolved = { role: value as BuiltInRole, roleId: null, privileges: builtInPrivileges(value as BuiltInRole) };
    } else {
      const custom = ID_PATTERN.test(value) ? await this.repo.findRole(value) : null;
      if (!custom || custom.orgId !== caller.orgId) {
        throw Errors.badRequest('Invalid role.', [`'role' must be one of ${BUILT_IN.join(', ')} or the id of a custom role.`]);
      }
      resolved = { role: baseRoleFor(custom.privileges), roleId: custom.id, privileges: custom.privileges };
    }
    this.assertGrantable(caller, resolved.privileges);
    return { role: resolved.role, roleId: resolved.roleId };
  }

  private assertGrantable(caller: Caller, privileges: string[]): void {
    const missing = privileges.filter((p) => !caller.privileges.includes(p));
    if (missing.length) throw Errors.forbidden(`You cannot grant privileges you do not hold: ${missing.join(', ')}.`);
  }

  private async fullUser(u: UserEntity, viewer: Pick<Caller, 'privileges'>) {
    const groups = await this.repo.listMemberships(u.id);
    return {
      ...privateUser(u, viewer.privileges),
      groups: groups.map((g) => ({
        id: g.id,
        title: g.title,
        owner: g.owner,
        access: g.access,
        userMembership: { username: u.username, memberType: g.member_type, applications: 0 },
      })),
    };
  }
}

/** ArcGIS's built-in roles; a user with a custom role also keeps the built-in role it sits on (users.role). */
export type BuiltInRole = 'org_admin' | 'org_publisher' | 'org_user';

/** The authenticated user behind a request, as resolved from its token. */
export interface Caller {
  userId: string;
  username: string;
  orgId: string;
  role: BuiltInRole;
  roleId: string | null;
  privileges: string[];
}

export const Privilege = {
  /** Share and unshare other users' items (ArcGIS "administrative privileges" for sharing). */
  AdminShare: 'portal:admin:shareToGroup',
  AdminViewItems: 'portal:admin:viewItems',
  AdminDeleteItems: 'portal:admin:deleteItems',
  AdminViewGroups: 'portal:admin:viewGroups',
  AdminUpdateGroups: 'portal:admin:updateGroups',
  /** Change other users' items, feature service definitions and data included. */
  AdminUpdateItems: 'portal:admin:updateItems',
  /** Give other users' items to another member of their organisation. */
  AdminReassignItems: 'portal:admin:reassignItems',
  AdminUsers: 'portal:admin:manageUsers',
  AdminRoles: 'portal:admin:manageRoles',
  CreateItem: 'portal:user:createItem',
  CreateGroup: 'portal:user:createGroup',
  ShareToGroup: 'portal:user:shareToGroup',
  ShareToOrg: 'portal:user:shareToOrg',
  ShareToPublic: 'portal:user:shareToPublic',
  JoinGroup: 'portal:user:joinGroup',
  PublishFeatures: 'portal:publisher:publishFeatures',
  /** ArcGIS's finer user-administration privileges; AdminUsers (this service's umbrella) implies both. */
  AdminViewUsers: 'portal:admin:viewUsers',
  AdminUpdateUsers: 'portal:admin:updateUsers',
} as const;

const USER = [
  Privilege.CreateItem,
  Privilege.CreateGroup,
  Privilege.ShareToGroup,
  Privilege.ShareToOrg,
  Privilege.ShareToPublic,
  Privilege.JoinGroup,
];
const PUBLISHER = [...USER, Privilege.PublishFeatures];
const ADMIN = [
  ...PUBLISHER,
  Privilege.AdminShare,
  Privilege.AdminViewItems,
  Privilege.AdminDeleteItems,
  Privilege.AdminViewGroups,
  Privilege.AdminUpdateGroups,
  Privilege.AdminUpdateItems,
  Privilege.AdminReassignItems,
  Privilege.AdminUsers,
  Privilege.AdminRoles,
  Privilege.AdminViewUsers,
  Privilege.AdminUpdateUsers,
];

export const ALL_PRIVILEGES: readonly string[] = ADMIN;

/** Privileges of a built-in role; a custom role's own list replaces these. */
export function builtInPrivileges(role: BuiltInRole): string[] {
  return role === 'org_admin' ? [...ADMIN] : role === 'org_publisher' ? [...PUBLISHER] : [...USER];
}

export function can(caller: Caller | undefined, privilege: string): boolean {
  return !!caller && caller.privileges.includes(privilege);
}

/** Whether the caller holds at least one of `privileges` (a fine privilege or the umbrella that implies it). */
export function canAny(caller: Caller | undefined, ...privileges: string[]): boolean {
  return privileges.some((p) => can(caller, p));
}

/** Whether the caller holds every one of `privileges`. */
export function holdsAll(caller: Caller | undefined, privileges: readonly string[]): boolean {
  return !!caller && privileges.every((p) => caller.privileges.includes(p));
}

/** Full administration, the org_admin role's whole set: what operations dashboards (Bull Board) require. */
export function isFullAdmin(caller: Caller | undefined): boolean {
  return holdsAll(caller, ADMIN);
}

/**
 * Whether the caller may act on another user's account (role, tokens, status): an administrator of users in the
 * user's organisation who holds every privilege that user holds. A lesser role could otherwise demote, lock out or
 * disable the administrators above it.
 */
export function mayManageUser(caller: Caller, target: { orgId: string; privileges: readonly string[] }): boolean {
  return isAdminFor(caller, target.orgId, Privilege.AdminUsers) && holdsAll(caller, target.privileges);
}

/** Whether the caller may act on content of a user in `orgId` as an administrator. */
export function isAdminFor(caller: Caller | undefined, orgId: string, privilege: string = Privilege.AdminShare): boolean {
  return !!caller && caller.orgId === orgId && can(caller, privilege);
}

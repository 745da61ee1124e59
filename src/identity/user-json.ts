import { builtInPrivileges, Caller, canAny, Privilege } from '../core/auth/caller';
import { UserEntity } from './identity.entities';

const ms = (d: Date) => d.getTime();

/** The columns every user reply is built from (a search row carries the same, plus its role's privileges). */
export type UserFields = Pick<
  UserEntity,
  | 'id'
  | 'username'
  | 'orgId'
  | 'role'
  | 'roleId'
  | 'fullName'
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'description'
  | 'favGroupId'
  | 'disabled'
  | 'tags'
  | 'thumbnail'
  | 'access'
  | 'culture'
  | 'region'
  | 'units'
  | 'preferredView'
  | 'lastLogin'
  | 'created'
  | 'modified'
>;

/** What everyone who may see the profile sees (community/users/<u>, community user search). */
export function publicUser(u: UserFields) {
  return {
    username: u.username,
    id: u.id,
    fullName: u.fullName,
    firstName: u.firstName,
    lastName: u.lastName,
    description: u.description,
    tags: u.tags,
    culture: u.culture,
    region: u.region,
    units: u.units,
    thumbnail: u.thumbnail,
    orgId: u.orgId,
    provider: 'arcgis' as const,
    access: u.access,
    created: ms(u.created),
    modified: ms(u.modified),
  };
}

/** The user's whole record as the user and their administrators see it, without groups; `privileges` are the user's. */
export function privateUser(u: UserFields, privileges: string[]) {
  return {
    ...publicUser(u),
    email: u.email,
    role: u.role,
    ...(u.roleId ? { roleId: u.roleId } : {}),
    privileges,
    favGroupId: u.favGroupId,
    disabled: u.disabled,
    preferredView: u.preferredView,
    // ArcGIS answers -1 for a user who never signed in.
    lastLogin: u.lastLogin ? ms(u.lastLogin) : -1,
  };
}

/** Privileges from a row that carries its custom role's list (null: the built-in role's). */
export const privilegesOfRow = (u: Pick<UserEntity, 'role'>, rolePrivileges: string[] | null) =>
  rolePrivileges ?? builtInPrivileges(u.role);

/** Whether the caller administers the users of `orgId` (sees private profiles and whole records, searches the org). */
export function viewsUsersOf(caller: Caller | undefined, orgId: string): boolean {
  return !!caller && caller.orgId === orgId && canAny(caller, Privilege.AdminUsers, Privilege.AdminViewUsers);
}

/**
 * How much of a profile the caller sees, as ArcGIS's `access` decides: the user and the organisation's user
 * administrators see all of it; a public profile is everyone's, an org one the organisation's; otherwise none.
 */
export function profileView(caller: Caller | undefined, u: Pick<UserEntity, 'id' | 'orgId' | 'access'>): 'full' | 'public' | null {
  if (caller?.userId === u.id || viewsUsersOf(caller, u.orgId)) return 'full';
  if (u.access === 'public' || (u.access === 'org' && caller?.orgId === u.orgId)) return 'public';
  return null;
}

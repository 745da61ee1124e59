import { Inject, Injectable } from '@nestjs/common';
import { nextStart } from '../core/http/paging';
import { Caller, can, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { eventBy, OutboxEvent } from '../core/events/outbox.repository';
import { ID_PATTERN } from '../core/ids';
import { MemberType } from './group.entities';
import { GroupListRepository, MemberRow } from './group-list.repository';
import { toApplication, toInvitation, toMember } from './group-json';
import { GroupRow } from './group-sql';
import { GroupsRepository, NameResult } from './groups.repository';
import { GroupsService } from './groups.service';
import { AddUsersDto, InviteDto, RemoveUsersDto, UpdateUsersDto, UserListDto } from './members.dto';

const failed = (results: NameResult[]) => results.filter((r) => !r.ok).map((r) => r.requested);

/** A group's member list as another module may need it (e.g. to notify members). */
export interface GroupMembers {
  groupId: string;
  title: string;
  members: { userId: string; username: string; memberType: MemberType }[];
}

/** Memberships: listing, adding and removing members, joining and leaving, invitations and requests to join. */
@Injectable()
export class MembersService {
  constructor(
    private readonly groups: GroupsService,
    private readonly repo: GroupsRepository,
    private readonly lists: GroupListRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `{owner, admins, users}`: admins include the owner, users are the other members. Members and administrators only. */
  async users(caller: Caller, id: string) {
    await this.requireMemberView(caller, id);
    const all = await this.lists.allMembers(id);
    return {
      owner: all.find((m) => m.member_type === 'owner')?.username ?? null,
      admins: all.filter((m) => m.member_type !== 'member').map((m) => m.username),
      users: all.filter((m) => m.member_type === 'member').map((m) => m.username),
    };
  }

  /** Group user search (`userlist`), for members and administrators. */
  async userList(caller: Caller, id: string, p: UserListDto) {
    const group = await this.requireMemberView(caller, id);
    const joined = parseJoined(p.joined);
    const { total, rows } = await this.lists.members(
      id,
      { name: p.name?.trim() || undefined, memberTypes: p.memberType, joined, sortField: p.sortField, sortOrder: p.sortOrder },
      p,
    );
    const [owner] = (
      await this.lists.members(id, { memberTypes: ['owner'], sortField: 'username', sortOrder: 'asc' }, { start: 1, num: 1 })
    ).rows;
    return {
      total,
      start: p.start,
      num: p.num,
      nextStart: nextStart(p, total),
      owner: owner ? toMember(owner) : { username: group.owner },
      users: rows.map(toMember),
    };
  }

  async addUsers(caller: Caller, id: string, p: AddUsersDto) {
    const group = await this.groups.requireManaged(caller, id);
    if (!p.users?.length && !p.admins?.length) throw Errors.badRequest("'users' or 'admins' is required.");
    this.checkCount('users', p.users);
    this.checkCount('admins', p.admins);
    // Making someone a manager is the owner's (or an org admin's) call, as in updateUsers.
    if (p.admins?.length && !this.ownsOrAdministers(caller, group)) {
      throw Errors.forbidden('Only the group owner or an administrator may add group managers.');
    }
    const max = this.config.limits.userMaxGroups;
    const notAdded = [
      ...failed(await this.repo.addUsers(id, group.orgId, p.users ?? [], 'member', max, this.event(caller, id, 'addUsers', 'users'))),
      ...failed(await this.repo.addUsers(id, group.orgId, p.admins ?? [], 'admin', max, this.event(caller, id, 'addUsers', 'admins'))),
    ];
    return { notAdded };
  }

  /** Managers remove members; the owner and administrators remove managers too; nobody removes the owner. */
  async removeUsers(caller: Caller, id: string, p: RemoveUsersDto) {
    const group = await this.groups.requireManaged(caller, id);
    if (!p.users.length) throw Errors.badRequest("'users' is required.");
    this.checkCount('users', p.users);
    const event = this.event(caller, id, 'removeUsers', 'users');
    return { notRemoved: failed(await this.repo.removeUsers(id, p.users, this.ownsOrAdministers(caller, group), event)) };
  }

  /** ArcGIS's updateUsers: `users` become members, `admins` managers; the owner's (or an administrator's) call. */
  async updateUsers(caller: Caller, id: string, p: UpdateUsersDto) {
    const group = await this.groups.requireManaged(caller, id);
    if (!p.users?.length && !p.admins?.length) throw Errors.badRequest("'users' or 'admins' is required.");
    this.checkCount('users', p.users);
    this.checkCount('admins', p.admins);
    if (!this.ownsOrAdministers(caller, group)) {
      throw Errors.forbidden('Only the group owner or an administrator may change memberships.');
    }
    const results = [
      ...(p.users?.length ? await this.repo.updateMemberships(id, p.users, 'member', this.event(caller, id, 'updateUsers', 'users')) : []),
      ...(p.admins?.length
        ? await this.repo.updateMemberships(id, p.admins, 'admin', this.event(caller, id, 'updateUsers', 'admins'))
        : []),
    ];
    return { results };
  }

  /**
   * Joining, as ArcGIS decides it: never into an invitation-only group; only from the group's organisation when its
   * membershipAccess says so; at once when the group is autoJoin, else as a request its managers accept or decline.
   */
  async join(caller: Caller, id: string) {
    const { group, membership } = await this.groups.requireVisible(caller, id);
    if (!can(caller, Privilege.JoinGroup)) throw Errors.forbidden('Your role may not join groups.');
    if (membership !== 'none') throw unableToJoin('You are already a member of this group.');
    if (group.isInvitationOnly) throw unableToJoin('This group is by invitation only.');
    if (group.membershipAccess && group.membershipAccess !== 'none' && group.orgId !== caller.orgId) {
      throw unableToJoin("Only members of the group's organization may join it.");
    }
    const max = this.config.limits.userMaxGroups;
    const outcome = await this.repo.join(id, caller.userId, group.autoJoin, max);
    if (outcome === 'member') throw unableToJoin('You are already a member of this group.');
    if (outcome === 'full') throw unableToJoin(`You belong to the maximum number of groups (${max}).`);
    return { success: true, groupId: id };
  }

  async leave(caller: Caller, id: string) {
    const { membership } = await this.groups.requireVisible(caller, id);
    if (membership === 'owner') throw Errors.badRequest('Unable to leave group.', ['The group owner cannot leave the group.']);
    if (!(await this.repo.leave(id, caller.userId))) {
      throw Errors.badRequest('Unable to leave group.', ['You are not a member of this group.']);
    }
    return { success: true, groupId: id };
  }

  /** Managers invite; inviting managers is the owner's (or an administrator's) call. Users not invited are listed. */
  async invite(caller: Caller, id: string, p: InviteDto) {
    const group = await this.groups.requireManaged(caller, id);
    if (!p.users.length) throw Errors.badRequest("'users' is required.");
    this.checkCount('users', p.users);
    if (p.role === 'group_admin' && !this.ownsOrAdministers(caller, group)) {
      throw Errors.forbidden('Only the group owner or an administrator may invite group managers.');
    }
    const orgOnly = group.membershipAccess && group.membershipAccess !== 'none' ? group.orgId : null;
    const expires = new Date(Date.now() + p.expiration * 60_000);
    const results = await this.repo.invite(id, caller.userId, p.users, p.role, expires, orgOnly);
    return { success: true, notInvited: failed(results) };
  }

  async invitations(caller: Caller, username: string) {
    this.requireSelf(caller, username);
    return { userInvitations: (await this.lists.invitations(caller.userId)).map((r) => toInvitation(r, caller)) };
  }

  async invitation(caller: Caller, username: string, invitationId: string) {
    this.requireSelf(caller, username);
    const [row] = ID_PATTERN.test(invitationId) ? await this.lists.invitations(caller.userId, invitationId.toLowerCase()) : [];
    if (!row) throw invitationNotFound(invitationId);
    return toInvitation(row, caller);
  }

  async acceptInvitation(caller: Caller, username: string, invitationId: string) {
    this.requireSelf(caller, username);
    const max = this.config.limits.userMaxGroups;
    const id = invitationId.toLowerCase();
    const r = ID_PATTERN.test(id) ? await this.repo.acceptInvitation(id, caller.userId, max) : undefined;
    if (!r) throw invitationNotFound(invitationId);
    if (!r.ok) throw Errors.badRequest('Unable to accept invitation.', [`You belong to the maximum number of groups (${max}).`]);
    return { success: true, username: caller.username, groupId: r.groupId, id };
  }

  async declineInvitation(caller: Caller, username: string, invitationId: string) {
    this.requireSelf(caller, username);
    const id = invitationId.toLowerCase();
    const groupId = ID_PATTERN.test(id) ? await this.repo.declineInvitation(id, caller.userId) : undefined;
    if (!groupId) throw invitationNotFound(invitationId);
    return { success: true, username: caller.username, groupId, id };
  }

  async applications(caller: Caller, id: string) {
    await this.groups.requireManaged(caller, id);
    return { applications: (await this.lists.applications(id)).map(toApplication) };
  }

  async application(caller: Caller, id: string, username: string) {
    await this.groups.requireManaged(caller, id);
    const [row] = await this.lists.applications(id, username);
    if (!row) throw applicationNotFound(username);
    return toApplication(row);
  }

  async acceptApplication(caller: Caller, id: string, username: string) {
    await this.groups.requireManaged(caller, id);
    const max = this.config.limits.userMaxGroups;
    const r = await this.repo.acceptApplication(id, username, max);
    if (!r) throw applicationNotFound(username);
    if (!r.ok) throw Errors.badRequest('Unable to accept application.', [`The user belongs to the maximum number of groups (${max}).`]);
    return { success: true, username: r.username, groupId: id };
  }

  async declineApplication(caller: Caller, id: string, username: string) {
    await this.groups.requireManaged(caller, id);
    const declined = await this.repo.declineApplication(id, username);
    if (!declined) throw applicationNotFound(username);
    return { success: true, username: declined, groupId: id };
  }

  /**
   * The members of a group the caller manages (owner, manager, or an administrator of its organisation's groups), for
   * other modules that act on a group's members, such as group notifications. Refuses as the group routes do.
   */
  async managedGroupMembers(caller: Caller, id: string): Promise<GroupMembers> {
    const group = await this.groups.requireManaged(caller, id);
    const rows: MemberRow[] = await this.lists.allMembers(id);
    return {
      groupId: id,
      title: group.title,
      members: rows.map((m) => ({ userId: m.user_id, username: m.username, memberType: m.member_type })),
    };
  }

  /** Members see a group's members; so do administrators who may view their organisation's groups. */
  private async requireMemberView(caller: Caller, id: string): Promise<GroupRow> {
    const { group, membership } = await this.groups.requireVisible(caller, id);
    if (membership === 'none' && !isAdminFor(caller, group.orgId, Privilege.AdminViewGroups)) {
      throw Errors.forbidden("Only the group's members and administrators may list its members.");
    }
    return group;
  }

  /** The membership event of one call, naming the users it changed (`users` or `admins`); none when it changed nobody. */
  private event(caller: Caller, groupId: string, op: string, role: 'users' | 'admins') {
    return (results: ({ requested: string; ok: boolean } | { username: string; success: boolean })[]): OutboxEvent | null => {
      const names = results.flatMap((r) => ('ok' in r ? (r.ok ? [r.requested] : []) : r.success ? [r.username] : []));
      return names.length ? eventBy(caller, 'group', op, [groupId], { [role]: names }) : null;
    };
  }

  private ownsOrAdministers(caller: Caller, group: GroupRow): boolean {
    return group.ownerId === caller.userId || isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups);
  }

  private requireSelf(caller: Caller, username: string): void {
    if (caller.username.toLowerCase() !== username.toLowerCase())
      throw Errors.forbidden('Only the user may see and answer their invitations.');
  }

  private checkCount(param: string, names: string[] | undefined): void {
    const max = this.config.limits.groupUsersPerRequest;
    if (names && names.length > max) {
      throw Errors.badRequest('Invalid or missing input parameters.', [`At most ${max} ${param} per request (GROUP_USERS_PER_REQUEST).`]);
    }
  }
}

function unableToJoin(detail: string): ArcgisError {
  return Errors.badRequest('Unable to join group.', [detail]);
}

function invitationNotFound(id: string): ArcgisError {
  return Errors.badRequest('Invitation does not exist or is inaccessible.', [`No invitation '${id.slice(0, 64)}' for you.`]);
}

function applicationNotFound(username: string): ArcgisError {
  return Errors.badRequest('Application does not exist or is inaccessible.', [`No request to join from '${username.slice(0, 64)}'.`]);
}

/** `joined=from,to` in epoch ms, either end empty. */
function parseJoined(raw: string | undefined): [number | null, number | null] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((s) => s.trim());
  const end = (s: string | undefined) => {
    if (!s) return null;
    if (!/^\d{1,15}$/.test(s))
      throw Errors.badRequest('Invalid or missing input parameters.', ["'joined' is 'from,to' in epoch milliseconds."]);
    return Number(s);
  };
  if (parts.length > 2) throw Errors.badRequest('Invalid or missing input parameters.', ["'joined' is 'from,to' in epoch milliseconds."]);
  return [end(parts[0]), end(parts[1])];
}

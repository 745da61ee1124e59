import { Inject, Injectable } from '@nestjs/common';
import { ContentService } from '../content/content.service';
import { Caller, can, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { newId } from '../core/ids';
import { MemberType } from './group.entities';
import { AddUsersDto, CreateGroupDto, RemoveUsersDto, UpdateMembershipsDto } from './groups.dto';
import { GroupMember, GroupRow, GroupsRepository } from './groups.repository';
import { PageDto, SearchDto } from '../content/content.dto';

type Membership = MemberType | 'none';

@Injectable()
export class GroupsService {
  constructor(
    private readonly repo: GroupsRepository,
    private readonly items: ContentService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, p: CreateGroupDto) {
    if (!can(caller, Privilege.CreateGroup)) throw Errors.forbidden('Your role may not create groups.');
    if (!p.title.trim()) throw Errors.badRequest('Invalid or missing input parameters.', ["'title' is required."]);
    const id = newId();
    const max = this.config.limits.userMaxGroups;
    const created = await this.repo.create(
      {
        id,
        orgId: caller.orgId,
        ownerId: caller.userId,
        title: p.title.trim(),
        access: p.access,
        tags: p.tags ?? [],
        description: p.description ?? '',
        snippet: p.snippet ?? '',
        phone: p.phone ?? '',
        sortField: p.sortField ?? 'title',
        sortOrder: p.sortOrder ?? 'asc',
        isInvitationOnly: p.isInvitationOnly ?? false,
        isViewOnly: p.isViewOnly ?? false,
        isFav: false,
        autoJoin: p.autoJoin ?? false,
      },
      max,
    );
    // ArcGIS counts owned and joined groups together and refuses the 513th.
    if (!created) throw Errors.badRequest('Unable to create group.', [`You belong to the maximum number of groups (${max}).`]);
    const { group } = await this.requireVisible(caller, id);
    return { success: true, group: this.toGroup(group, caller, 'owner') };
  }

  async info(caller: Caller | undefined, id: string) {
    const { group, membership } = await this.requireVisible(caller, id);
    return this.toGroup(group, caller, membership);
  }

  /** The groups an item is shared with that the caller may see (the item page), in one query whatever their number. */
  async sharedWith(caller: Caller | undefined, itemId: string) {
    const groups = await this.repo.visibleGroupsOfItem(itemId, caller);
    return groups.map(({ group, membership }) => this.toGroup(group, caller, membership));
  }

  async content(caller: Caller | undefined, id: string, page: PageDto) {
    // Private groups list their content to members and administrators only.
    await this.requireVisible(caller, id);
    return this.items.groupContent(caller, id, page);
  }

  async search(caller: Caller | undefined, id: string, p: SearchDto) {
    await this.requireVisible(caller, id);
    return this.items.search(caller, p, id);
  }

  async addUsers(caller: Caller, id: string, p: AddUsersDto) {
    const group = await this.requireManaged(caller, id);
    if (!p.users?.length && !p.admins?.length) throw Errors.badRequest("'users' or 'admins' is required.");
    // Making someone a manager is the owner's (or an org admin's) call, as in updateUserMemberships.
    if (p.admins?.length && group.ownerId !== caller.userId && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden('Only the group owner or an administrator may add group managers.');
    }
    const max = this.config.limits.userMaxGroups;
    const notAdded = [
      ...(await this.repo.addUsers(id, group.orgId, p.users ?? [], 'member', max)),
      ...(await this.repo.addUsers(id, group.orgId, p.admins ?? [], 'admin', max)),
    ];
    return { notAdded };
  }

  async removeUsers(caller: Caller, id: string, p: RemoveUsersDto) {
    await this.requireManaged(caller, id);
    if (!p.users.length) throw Errors.badRequest("'users' is required.");
    return { notRemoved: await this.repo.removeUsers(id, p.users) };
  }

  async updateMemberships(caller: Caller, id: string, p: UpdateMembershipsDto) {
    const group = await this.requireManaged(caller, id);
    if (!p.users.length) throw Errors.badRequest("'users' is required.");
    // Promoting and demoting admins is the owner's (or an org admin's) call, as in ArcGIS.
    if (group.ownerId !== caller.userId && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden('Only the group owner or an administrator may change memberships.');
    }
    return { results: await this.repo.updateMemberships(id, p.users, p.newMemberType) };
  }

  async delete(caller: Caller, id: string) {
    const { group } = await this.requireVisible(caller, id);
    if (group.ownerId !== caller.userId && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden('Only the group owner or an administrator may delete the group.');
    }
    await this.repo.delete(id);
    return { success: true, groupId: id };
  }

  /**
   * The group's members, owner and managers included, for a caller who manages the group (its owner, a manager, or an
   * administrator who may update the organisation's groups): whom a group notification reaches.
   */
  async membersForManager(caller: Caller, id: string): Promise<{ group: { id: string; title: string }; members: GroupMember[] }> {
    const group = await this.requireManaged(caller, id);
    return { group: { id: group.id, title: group.title }, members: await this.repo.members(id) };
  }

  /** Public groups are visible to all, org groups to the org, private groups to members and org administrators. */
  private async requireVisible(caller: Caller | undefined, id: string): Promise<{ group: GroupRow; membership: Membership }> {
    const visible = await this.repo.findVisible(id, caller);
    if (!visible) throw Errors.groupNotFound(id);
    return visible;
  }

  private async requireManaged(caller: Caller, id: string): Promise<GroupRow> {
    const { group, membership } = await this.requireVisible(caller, id);
    if (membership !== 'owner' && membership !== 'admin' && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden('Only group owners and managers, or administrators, may change the group.');
    }
    return group;
  }

  private toGroup(g: GroupRow, caller: Caller | undefined, memberType: Membership) {
    return {
      id: g.id,
      title: g.title,
      isInvitationOnly: g.isInvitationOnly,
      owner: g.owner,
      description: g.description,
      snippet: g.snippet,
      tags: g.tags,
      typeKeywords: [],
      phone: g.phone,
      sortField: g.sortField,
      sortOrder: g.sortOrder,
      isViewOnly: g.isViewOnly,
      isFav: g.isFav,
      thumbnail: null,
      created: g.created.getTime(),
      modified: g.modified.getTime(),
      access: g.access,
      capabilities: [],
      isReadOnly: false,
      protected: false,
      autoJoin: g.autoJoin,
      orgId: g.orgId,
      userMembership: { username: caller?.username ?? null, memberType, applications: 0 },
    };
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { PageDto, SearchDto } from '../content/content.dto';
import { ContentService } from '../content/content.service';
import { nextStart } from '../core/http/paging';
import { Caller, can, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { eventBy } from '../core/events/outbox.repository';
import { UploadedFile } from '../core/http/arcgis-request';
import { checkTags } from '../core/http/tag-list';
import { newId } from '../core/ids';
import { parseSearchQuery } from '../core/search/search-query';
import { Download } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';
import { GROUP_RANGE_FIELDS, GROUP_SEARCH_FIELDS, GroupListRepository, GroupSearchNode } from './group-list.repository';
import { toGroup } from './group-json';
import { parseCategorySchema } from './category-schema';
import { CategorySchemaDto, CreateGroupDto, GroupSearchDto, UpdateGroupDto } from './groups.dto';
import { GroupRow, VisibleGroup } from './group-sql';
import { GroupPatch, GroupsRepository } from './groups.repository';
import { thumbnailMime, thumbnailName } from './thumbnail';

@Injectable()
export class GroupsService {
  private readonly logger = new Logger(GroupsService.name);

  constructor(
    private readonly repo: GroupsRepository,
    private readonly lists: GroupListRepository,
    private readonly items: ContentService,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, p: CreateGroupDto) {
    if (!can(caller, Privilege.CreateGroup)) throw Errors.forbidden('Your role may not create groups.');
    if (!p.title.trim()) throw Errors.badRequest('Invalid or missing input parameters.', ["'title' is required."]);
    this.checkTagLists(p);
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
        typeKeywords: p.typeKeywords ?? [],
        description: p.description ?? '',
        snippet: p.snippet ?? '',
        phone: p.phone ?? '',
        sortField: p.sortField ?? 'title',
        sortOrder: p.sortOrder ?? 'asc',
        isInvitationOnly: p.isInvitationOnly ?? false,
        isViewOnly: p.isViewOnly ?? false,
        isFav: false,
        autoJoin: p.autoJoin ?? false,
        membershipAccess: p.membershipAccess ?? null,
      },
      max,
      eventBy(caller, 'group', 'add', [id], { title: p.title.trim() }),
    );
    // ArcGIS counts owned and joined groups together and refuses the 513th.
    if (!created) throw Errors.badRequest('Unable to create group.', [`You belong to the maximum number of groups (${max}).`]);
    const { group } = await this.requireVisible(caller, id);
    return { success: true, group: toGroup(group, caller, 'owner') };
  }

  async info(caller: Caller | undefined, id: string) {
    const { group, membership, applications } = await this.requireVisible(caller, id);
    return toGroup(group, caller, membership, applications);
  }

  /** The groups an item is shared with that the caller may see (the item page), in one query whatever their number. */
  async sharedWith(caller: Caller | undefined, itemId: string) {
    const groups = await this.repo.visibleGroupsOfItem(itemId, caller);
    return groups.map(({ group, membership }) => toGroup(group, caller, membership));
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

  /** Group search (`community/groups`): the groups the caller may see that match `q`, sorted and paged. */
  async searchGroups(caller: Caller | undefined, p: GroupSearchDto) {
    if (p.q === undefined || p.q.trim() === '') {
      throw Errors.badRequest("'q' is required.", ['Pass a query such as q=owner: jsmith AND tags: parks, or q=* for every group.']);
    }
    const node: GroupSearchNode = parseSearchQuery(p.q, { fields: GROUP_SEARCH_FIELDS, ranges: GROUP_RANGE_FIELDS });
    checkGroupQuery(node);
    const { total, rows } = await this.lists.search(
      node,
      caller,
      p.searchUserAccess === 'groupMember',
      { field: p.sortField ?? 'title', order: p.sortOrder ?? 'asc' },
      p,
    );
    return {
      query: p.q,
      total,
      start: p.start,
      num: p.num,
      nextStart: nextStart(p, total),
      results: rows.map((r) => toGroup(r.group, caller, r.membership, r.applications)),
    };
  }

  /** ArcGIS's update: owners, managers and administrators; what is sent changes (see UpdateGroupDto), the rest stays. */
  async update(caller: Caller, id: string, p: UpdateGroupDto, file: UploadedFile | undefined) {
    const group = await this.requireManaged(caller, id);
    const clear = p.clearEmptyFields === true;
    const text = (v: string | undefined) => (v === undefined || (v.trim() === '' && !clear) ? undefined : v);
    const list = (v: string[] | undefined) => (v === undefined || (v.length === 0 && !clear) ? undefined : v);
    if (p.title !== undefined && !p.title.trim() && clear)
      throw Errors.badRequest('Invalid or missing input parameters.', ["'title' cannot be empty."]);
    this.checkTagLists(p);
    const patch: GroupPatch = {
      title: p.title?.trim() || undefined,
      access: p.access,
      tags: list(p.tags),
      typeKeywords: list(p.typeKeywords),
      description: text(p.description),
      snippet: text(p.snippet),
      phone: text(p.phone),
      sortField: p.sortField,
      sortOrder: p.sortOrder,
      isInvitationOnly: p.isInvitationOnly,
      isViewOnly: p.isViewOnly,
      autoJoin: p.autoJoin,
      membershipAccess: p.membershipAccess === '' ? (clear ? null : undefined) : p.membershipAccess,
    };
    if (file && file.fieldname !== 'thumbnail') {
      throw Errors.badRequest('Invalid or missing input parameters.', [
        `'${file.fieldname.slice(0, 64)}' is not a file parameter; send 'thumbnail'.`,
      ]);
    }
    let newKey: string | undefined;
    if (file) {
      const name = await thumbnailName(file.path, file.originalname);
      newKey = await this.files.adoptAs(FileStore.groupKey(group.id, name), file.path);
      patch.thumbnail = name;
      patch.thumbnailKey = newKey;
    }
    let before: Awaited<ReturnType<GroupsRepository['update']>>;
    try {
      before = await this.repo.update(id, patch, eventBy(caller, 'group', 'update', [id]));
    } catch (e) {
      if (newKey && newKey !== group.thumbnailKey) await this.removeFile(newKey);
      throw e;
    }
    if (!before) {
      // Deleted meanwhile: the file just stored belongs to nothing.
      if (newKey) await this.removeFile(newKey);
      throw Errors.groupNotFound(id);
    }
    if (newKey && before.oldThumbnailKey && before.oldThumbnailKey !== newKey) await this.removeFile(before.oldThumbnailKey);
    return { success: true, groupId: id };
  }

  /** A protected group cannot be deleted; the owner and administrators may protect and unprotect it, as in ArcGIS. */
  async setProtected(caller: Caller, id: string, value: boolean) {
    await this.requireOwned(caller, id, value ? 'protect' : 'unprotect');
    await this.repo.setProtected(id, value, eventBy(caller, 'group', value ? 'protect' : 'unprotect', [id]));
    return { success: true };
  }

  async delete(caller: Caller, id: string) {
    const group = await this.requireOwned(caller, id, 'delete');
    if (group.protected) throw protectedGroup();
    const deleted = await this.repo.delete(id, eventBy(caller, 'group', 'delete', [id], { title: group.title }));
    // Protected by someone else since the read above; the statement refuses it all the same.
    if (!deleted) throw protectedGroup();
    if (deleted.thumbnailKey) await this.removeFile(deleted.thumbnailKey);
    return { success: true, groupId: id };
  }

  /** The group's thumbnail (`info/<name>`), for anyone who may see the group. */
  async thumbnail(caller: Caller | undefined, id: string, name: string): Promise<Download> {
    const { group } = await this.requireVisible(caller, id);
    const object = group.thumbnail === name && group.thumbnailKey ? await this.files.stat(group.thumbnailKey) : null;
    if (!object || !group.thumbnailKey) {
      throw Errors.badRequest('File does not exist or is inaccessible.', [`The group has no file '${name.slice(0, 64)}'.`]);
    }
    return { key: group.thumbnailKey, object, fileName: name, contentType: thumbnailMime(name) };
  }

  async categorySchema(caller: Caller | undefined, id: string) {
    const { group } = await this.requireVisible(caller, id);
    return { categorySchema: group.categorySchema ?? [] };
  }

  async assignCategorySchema(caller: Caller, id: string, p: CategorySchemaDto) {
    await this.requireManaged(caller, id);
    await this.repo.setCategorySchema(id, parseCategorySchema(p.categorySchema));
    return { success: true };
  }

  /** Public groups are visible to all, org groups to the org, private groups to members and org administrators. */
  async requireVisible(caller: Caller | undefined, id: string): Promise<VisibleGroup> {
    const visible = await this.repo.findVisible(id, caller);
    if (!visible) throw Errors.groupNotFound(id);
    return visible;
  }

  /** The group, when the caller is its owner or a manager, or an administrator of its organisation (else 403). */
  async requireManaged(caller: Caller, id: string): Promise<GroupRow> {
    const { group, membership } = await this.requireVisible(caller, id);
    if (membership !== 'owner' && membership !== 'admin' && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden('Only group owners and managers, or administrators, may change the group.');
    }
    return group;
  }

  /** The group, when the caller owns it or administers its organisation's groups (else 403). */
  async requireOwned(caller: Caller, id: string, what: string): Promise<GroupRow> {
    const { group } = await this.requireVisible(caller, id);
    if (group.ownerId !== caller.userId && !isAdminFor(caller, group.orgId, Privilege.AdminUpdateGroups)) {
      throw Errors.forbidden(`Only the group owner or an administrator may ${what} the group.`);
    }
    return group;
  }

  private checkTagLists(p: { tags?: string[]; typeKeywords?: string[] }): void {
    checkTags('tags', p.tags, this.config.limits);
    checkTags('typeKeywords', p.typeKeywords, this.config.limits);
  }

  /** A failed removal leaves an object no group names; it costs space, never correctness. */
  private async removeFile(key: string): Promise<void> {
    await this.files.remove(key).catch((e) => this.logger.warn(`could not remove ${key}: ${(e as Error).message}`));
  }
}

function protectedGroup(): ArcgisError {
  return Errors.badRequest('Unable to delete group.', ['The group is protected; unprotect it first.']);
}

/** Values the group fields take, checked before the query runs so a typo is named rather than matching nothing. */
function checkGroupQuery(node: GroupSearchNode): void {
  if (node.kind === 'and' || node.kind === 'or') {
    checkGroupQuery(node.left);
    checkGroupQuery(node.right);
  } else if (node.kind === 'not') checkGroupQuery(node.node);
  else if (node.kind === 'term' && node.field === 'isinvitationonly' && !/^(true|false)$/i.test(node.value)) {
    throw Errors.badRequest("Invalid value for parameter 'q'.", [
      `'isInvitationOnly' takes true or false, not '${node.value.slice(0, 32)}'.`,
    ]);
  } else if (node.kind === 'term' && node.field === 'access' && !/^(private|org|public|account)$/i.test(node.value)) {
    throw Errors.badRequest("Invalid value for parameter 'q'.", [
      `'access' takes private, org or public, not '${node.value.slice(0, 32)}'.`,
    ]);
  }
}

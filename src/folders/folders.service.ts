import { Inject, Injectable } from '@nestjs/common';
import { Caller, holdsAll, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventBy } from '../core/events/outbox.repository';
import { ID_PATTERN } from '../core/ids';
import { AddItemDto, PageDto } from '../content/content.dto';
import { ContentRepository } from '../content/content.repository';
import { ContentService, UploadedFile } from '../content/content.service';
import { UserEntity } from '../identity/identity.entities';
import { IdentityService } from '../identity/identity.service';
import { SharingRepository } from '../sharing/sharing.repository';
import { FolderRow, FoldersRepository } from './folders.repository';

/** A batch names a missing item with code 500 per item, as ArcGIS's batch routes (shareItems) do. */
export const ITEM_MISSING = { code: 500, message: 'Item does not exist or is inaccessible.' };
const ALREADY_THERE = { code: 500, message: 'Item already exists in target folder.' };

export interface MoveResult {
  itemId: string;
  success: boolean;
  error?: { code: number; message: string };
}

export interface ReassignResult extends MoveResult {
  /** Groups the item left because its new owner could not share to them. */
  unsharedFrom: string[];
  /** The item was public and its new owner may not share publicly (it is shared with the organisation now, or private). */
  unsharedFromEveryone: boolean;
  /** The item was shared with the organisation (or public) and its new owner may share with neither: it is private now. */
  unsharedFromOrg: boolean;
}

/** `/` or nothing names the root folder wherever ArcGIS takes a folder. */
const isRoot = (folder: string | undefined) => folder === undefined || folder.trim() === '' || folder.trim() === '/';

/**
 * Folders, and where items sit in them: creating and deleting folders, the folder and root listings, adding items
 * into a folder, moving items, and giving items to another owner (reassign). Item rows change only through
 * ContentRepository, shares through SharingRepository; batches run a fixed number of statements whatever their size.
 */
@Injectable()
export class FoldersService {
  constructor(
    private readonly repo: FoldersRepository,
    private readonly content: ContentService,
    private readonly items: ContentRepository,
    private readonly sharing: SharingRepository,
    private readonly identity: IdentityService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, ownerName: string, rawTitle: string) {
    const owner = await this.mayOrganise(caller, ownerName);
    const title = rawTitle.trim();
    if (!title) throw Errors.badRequest("'title' is required.", ['A folder needs a title.']);
    if ([...title].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127))
      throw Errors.badRequest('Invalid folder title.', ['A title holds no control characters.']);
    // The root folder goes by the user name and by `/` (move, reassign); neither can be a folder's title.
    const folder = title === '/' || title.toLowerCase() === owner.username.toLowerCase() ? null : await this.repo.create(owner.id, title);
    if (!folder) throw Errors.badRequest('Unable to create folder.', [`Folder title '${title}' not available.`]);
    return { success: true, folder: toFolder(folder, owner.username) };
  }

  /** Deletes the folder; its items move to the root, in the same transaction. */
  async delete(caller: Caller, ownerName: string, folderId: string) {
    const owner = await this.mayOrganise(caller, ownerName);
    const folder = await this.requireFolder(owner, folderId);
    await this.repo.transaction(async (m) => {
      await this.items.clearFolder(m, folder.id);
      await this.repo.delete(m, folder.id);
    });
    return { success: true, folder: toFolder(folder, owner.username) };
  }

  /** The root listing: root items, and every folder. */
  async rootContent(caller: Caller, ownerName: string, page: PageDto) {
    const listing = await this.content.userContent(caller, ownerName, page);
    const owner = await this.mayList(caller, ownerName);
    return { ...listing, folders: (await this.repo.list(owner.id)).map((f) => toFolder(f, owner.username)) };
  }

  /** One folder's items, with the folder as `currentFolder`. */
  async folderContent(caller: Caller, ownerName: string, folderId: string, page: PageDto) {
    const owner = await this.mayList(caller, ownerName);
    const folder = await this.requireFolder(owner, folderId);
    const listing = await this.content.userContent(caller, ownerName, page, folder.id);
    return { ...listing, currentFolder: toFolder(folder, owner.username), folders: [] };
  }

  async addItem(caller: Caller, ownerName: string, folderId: string, p: AddItemDto, file: UploadedFile | undefined) {
    const owner = await this.identity.actingFor(caller, ownerName, null, 'Items can only be added to your own content.');
    const folder = await this.requireFolder(owner, folderId);
    return this.content.addItem(caller, ownerName, p, file, folder.id);
  }

  /** Moves the owner's items into a folder of theirs (`/`: the root); one result per requested position. */
  async move(caller: Caller, ownerName: string, rawItems: string[], folderName: string | undefined): Promise<MoveResult[]> {
    const owner = await this.mayOrganise(caller, ownerName);
    const items = this.checkItems(rawItems);
    const folderId = isRoot(folderName) ? null : (await this.requireFolder(owner, folderName!.trim())).id;
    const rows = await this.items.moveToFolder(owner.id, unique(items), folderId, (r) => {
      const ids = r.filter((x) => x.moved).map((x) => x.id);
      return ids.length ? eventBy(caller, 'item', 'move', ids, { folder: folderId, items: ids }) : null;
    });
    const moved = new Map(rows.map((r) => [r.id, r.moved]));
    return items.map((itemId) => {
      const m = moved.get(itemId);
      if (m === undefined) return { itemId, success: false, error: ITEM_MISSING };
      return m ? { itemId, success: true } : { itemId, success: false, error: ALREADY_THERE };
    });
  }

  /** The folder a move put items in, as the single move route reports it (`/` for the root). */
  async folderIdOf(caller: Caller, ownerName: string, folderName: string | undefined): Promise<string> {
    if (isRoot(folderName)) return '/';
    return (await this.requireFolder(await this.mayOrganise(caller, ownerName), folderName!.trim())).id;
  }

  /**
   * Gives the owner's items to `targetUsername` (same organisation, a role that creates content), into their folder
   * `targetFolderName` (created if missing). Items leave the groups the new owner could not share them to, and public
   * or organisation sharing the new owner's role does not have (ArcGIS's documents are silent on it). One transaction
   * with a fixed number of statements: items locked in id order, the folder, the shares, the items.
   */
  async reassign(
    caller: Caller,
    ownerName: string,
    rawItems: string[],
    targetUsername: string,
    targetFolderName: string | undefined,
  ): Promise<ReassignResult[]> {
    const refusal = 'Only an administrator of the organization may reassign items.';
    const owner = await this.identity.actingFor(caller, ownerName, Privilege.AdminReassignItems, refusal);
    // Their own items too: reassigning is an administrator's operation.
    if (!isAdminFor(caller, owner.orgId, Privilege.AdminReassignItems)) throw Errors.forbidden(refusal);
    // As for managing a user: an administrator above no one may take the items of one above them.
    if (!holdsAll(caller, await this.identity.privilegesOf(owner))) {
      throw Errors.forbidden(`Only an administrator holding every privilege of ${owner.username} may reassign their items.`);
    }
    const items = this.checkItems(rawItems);
    // A user of another organisation is no user here: named like one that does not exist, so nothing shows through.
    const target = await this.identity.userOfOrg(targetUsername.trim(), owner.orgId);
    // Taking items oneself is reading and changing them: it needs the privileges that reading and changing need.
    if (target.id === caller.userId && !holdsAll(caller, [Privilege.AdminViewItems, Privilege.AdminUpdateItems])) {
      throw Errors.forbidden('Reassigning items to oneself needs portal:admin:viewItems and portal:admin:updateItems.');
    }
    if (target.id === owner.id) throw Errors.badRequest('Unable to reassign items.', [`The items belong to '${owner.username}' already.`]);
    if (target.disabled) throw Errors.badRequest('Unable to reassign items.', [`User '${target.username}' is disabled.`]);
    const privileges = await this.identity.privilegesOf(target);
    if (!privileges.includes(Privilege.CreateItem)) {
      throw Errors.badRequest('Unable to reassign items.', [
        `User '${target.username}' cannot own items: their role does not create content.`,
      ]);
    }
    const folderTitle = isRoot(targetFolderName) ? null : targetFolderName!.trim();
    if (folderTitle && folderTitle.toLowerCase() === target.username.toLowerCase()) {
      throw Errors.badRequest('Unable to reassign items.', [`Folder title '${folderTitle}' not available.`]);
    }
    const { removed, levels } = await this.repo.transaction(async (m) => {
      const locked = await this.items.lockOwned(m, owner.id, unique(items));
      if (!locked.length) return { removed: [], levels: [] };
      const folderId = folderTitle ? await this.repo.ensure(m, target.id, folderTitle) : null;
      const removed = await this.sharing.dropForNewOwner(m, locked, {
        userId: target.id,
        orgId: target.orgId,
        sharesToGroups: privileges.includes(Privilege.ShareToGroup),
        adminShares: privileges.includes(Privilege.AdminShare),
      });
      const from = new Map<string, string[]>();
      for (const r of removed) from.set(r.item_id, [...(from.get(r.item_id) ?? []), r.group_id]);
      const to = { public: privileges.includes(Privilege.ShareToPublic), org: privileges.includes(Privilege.ShareToOrg) };
      const levels = await this.items.reassign(m, locked, owner.id, target.id, folderId, to, (done) =>
        eventBy(caller, 'item', 'reassign', locked, {
          targetUsername: target.username,
          items: done.map((l) => ({ id: l.id, unsharedFrom: from.get(l.id) ?? [], access: l.access, previousAccess: l.was })),
        }),
      );
      return { removed, levels };
    });
    const done = new Map(levels.map((l) => [l.id, l]));
    const left = new Map<string, string[]>();
    for (const r of removed) left.set(r.item_id, [...(left.get(r.item_id) ?? []), r.group_id].sort());
    const none = { unsharedFrom: [], unsharedFromEveryone: false, unsharedFromOrg: false };
    return items.map((itemId) => {
      const l = done.get(itemId);
      if (!l) return { itemId, success: false, ...none, error: ITEM_MISSING };
      return {
        itemId,
        success: true,
        unsharedFrom: left.get(itemId) ?? [],
        unsharedFromEveryone: l.was === 'public' && l.access !== 'public',
        unsharedFromOrg: l.was !== 'private' && l.access === 'private',
      };
    });
  }

  /** The owner, or an administrator who may change the owner's items. */
  private mayOrganise(caller: Caller, ownerName: string): Promise<UserEntity> {
    const refusal = 'Only the owner or an administrator may organize these items.';
    return this.identity.actingFor(caller, ownerName, Privilege.AdminUpdateItems, refusal);
  }

  /** The owner, or an administrator who may see the owner's items. */
  private mayList(caller: Caller, ownerName: string): Promise<UserEntity> {
    return this.identity.actingFor(
      caller,
      ownerName,
      Privilege.AdminViewItems,
      "Only the owner or an administrator may list a user's content.",
    );
  }

  private async requireFolder(owner: UserEntity, idOrTitle: string): Promise<FolderRow> {
    const folder = await this.repo.find(owner.id, idOrTitle);
    if (!folder) throw Errors.badRequest('Folder does not exist.', [`${owner.username} has no folder '${idOrTitle.slice(0, 64)}'.`]);
    return folder;
  }

  private checkItems(items: string[]): string[] {
    const max = this.config.limits.shareMaxItems;
    if (!items.length) throw Errors.badRequest("'items' is required.", ['Pass a comma-separated list of item ids.']);
    if (items.length > max) throw Errors.badRequest(`Too many items: ${items.length}.`, [`At most ${max} items per request.`]);
    const bad = items.filter((id) => !ID_PATTERN.test(id)).map((id) => `'${id.slice(0, 64)}' is not a valid item id.`);
    if (bad.length) throw Errors.badRequest('Invalid ids: ids are 32 hexadecimal characters.', bad.slice(0, 20));
    return items.map((s) => s.toLowerCase());
  }
}

/** ArcGIS's folder record (IFolder): created in ms. */
export function toFolder(f: FolderRow, username: string) {
  return { username, id: f.id, title: f.title, created: f.created.getTime() };
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

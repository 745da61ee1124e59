import { Inject, Injectable } from '@nestjs/common';
import { Caller, can, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventKeys, OutboxEvent } from '../core/events/outbox.repository';
import { ID_PATTERN } from '../core/ids';
import { IdentityService } from '../identity/identity.service';
import { ShareDto } from './sharing.dto';
import { AccessChange, ItemOutcome, SharingRepository } from './sharing.repository';

export interface ItemResult {
  itemId: string;
  success: boolean;
  notGroups: string[];
  error?: { code: number; message: string };
  /** Refused whole for the cap on groups per item: the single-item routes answer it as a top-level error. */
  capped?: boolean;
}

/** Real ArcGIS reports a missing item inside a batch with code 500, per item in an HTTP 200 reply; kept for compatibility. */
const ITEM_MISSING = { code: 500, message: 'Item does not exist or is inaccessible.' };

@Injectable()
export class SharingService {
  constructor(
    private readonly repo: SharingRepository,
    private readonly identity: IdentityService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `ownerName` null means the group-admin route, where each item's own owner applies. */
  async unshare(caller: Caller, ownerName: string | null, rawItems: string[], rawGroups: string[]): Promise<ItemResult[]> {
    const { items, groups } = this.checkLists(rawItems, rawGroups, true);
    const { ownerId, callerIsAdmin } = await this.authorize(caller, ownerName, groups);
    const change = { caller, callerIsAdmin, ownerId, itemIds: unique(items), groupIds: unique(groups) };
    const outcomes = await this.repo.unshare(change, (o) => this.event(caller, 'unshare', items, groups, o, null));
    return this.results(items, groups, outcomes, 'unshare');
  }

  async share(caller: Caller, ownerName: string | null, rawItems: string[], p: ShareDto): Promise<ItemResult[]> {
    const access: AccessChange = { everyone: p.everyone ?? null, org: p.org ?? p.account ?? null };
    const { items, groups } = this.checkLists(rawItems, p.groups ?? [], access.everyone === null && access.org === null);
    if (groups.length && !can(caller, Privilege.ShareToGroup)) throw Errors.forbidden('Your role may not share to groups.');
    if (access.everyone && !can(caller, Privilege.ShareToPublic)) throw Errors.forbidden('Your role may not share publicly.');
    if (access.org && !can(caller, Privilege.ShareToOrg)) throw Errors.forbidden('Your role may not share to the organization.');
    if (ownerName === null && (access.everyone !== null || access.org !== null)) {
      throw Errors.badRequest("'everyone' and 'org' can only be set by the owner or an administrator.", [
        'Use content/users/<owner>/items/<id>/share.',
      ]);
    }
    const { ownerId, callerIsAdmin } = await this.authorize(caller, ownerName, groups);
    const change = { caller, callerIsAdmin, ownerId, itemIds: unique(items), groupIds: unique(groups) };
    const outcomes = await this.repo.share(change, access, this.config.limits.itemMaxGroups, (o) =>
      this.event(caller, 'share', items, groups, o, access),
    );
    return this.results(items, groups, outcomes, 'share');
  }

  /**
   * The one event of a share or unshare, however many items: each item's outcome in `properties.items` (the groups
   * it was shared to or unshared from, `notSharedWith` / `notUnsharedFrom`, `success`), as the reply reports them.
   */
  private event(
    caller: Caller,
    op: 'share' | 'unshare',
    items: string[],
    groups: string[],
    o: ItemOutcome[],
    access: AccessChange | null,
  ): OutboxEvent {
    const ids = unique(items);
    const per = this.results(ids, groups, o, op).map((r) => {
      const not = new Set(r.notGroups);
      const done = r.error?.code === 500 ? [] : unique(groups).filter((g) => !not.has(g));
      return op === 'share'
        ? { id: r.itemId, sharedTo: done, notSharedWith: r.notGroups, success: r.success }
        : { id: r.itemId, unsharedFrom: done, notUnsharedFrom: r.notGroups, success: r.success };
    });
    const properties = { groups: unique(groups), items: per, ...(access ? { everyone: access.everyone, org: access.org } : {}) };
    return {
      orgId: caller.orgId,
      user: { userId: caller.userId, username: caller.username },
      operation: op,
      source: 'item',
      id: ids.length === 1 ? ids[0] : null,
      keys: eventKeys('item', op, ids),
      properties,
    };
  }

  private checkLists(items: string[], groups: string[], groupsRequired: boolean) {
    const { shareMaxItems, shareMaxGroups } = this.config.limits;
    if (!items.length) throw Errors.badRequest("'items' is required.", ['Pass a comma-separated list of item ids.']);
    if (groupsRequired && !groups.length) throw Errors.badRequest("'groups' is required.", ['Pass a comma-separated list of group ids.']);
    if (items.length > shareMaxItems)
      throw Errors.badRequest(`Too many items: ${items.length}.`, [`At most ${shareMaxItems} items per request.`]);
    if (groups.length > shareMaxGroups)
      throw Errors.badRequest(`Too many groups: ${groups.length}.`, [`At most ${shareMaxGroups} groups per request.`]);
    const bad = [
      ...items.filter((id) => !ID_PATTERN.test(id)).map((id) => `'${id.slice(0, 64)}' is not a valid item id.`),
      ...groups.filter((id) => !ID_PATTERN.test(id)).map((id) => `'${id.slice(0, 64)}' is not a valid group id.`),
    ];
    if (bad.length) throw Errors.badRequest('Invalid ids: ids are 32 hexadecimal characters.', bad.slice(0, 20));
    return { items: items.map((s) => s.toLowerCase()), groups: groups.map((s) => s.toLowerCase()) };
  }

  /**
   * The path's owner must exist. A caller who is neither that owner nor an administrator of the owner's
   * organisation can only act as a manager of some requested group; managing none of them is a 403 for the request.
   */
  private async authorize(caller: Caller, ownerName: string | null, groups: string[]) {
    const callerIsAdmin = can(caller, Privilege.AdminShare);
    if (ownerName === null) return { ownerId: null, callerIsAdmin };
    const owner = await this.identity.requireUser(ownerName);
    const actsForOwner = owner.id === caller.userId || isAdminFor(caller, owner.orgId, Privilege.AdminShare);
    if (!actsForOwner && !(groups.length && (await this.repo.managesAnyGroup(caller.userId, groups)))) {
      throw Errors.forbidden(`You may not change the sharing of ${owner.username}'s items in the requested groups.`);
    }
    return { ownerId: owner.id, callerIsAdmin };
  }

  /** One result per requested position, in request order; duplicates get the same result at each position. */
  private results(items: string[], groups: string[], outcomes: ItemOutcome[], verb: 'share' | 'unshare'): ItemResult[] {
    const byId = new Map(outcomes.map((o) => [o.item_id, o]));
    const existing = new Set(outcomes[0]?.existing_groups ?? []);
    const missingGroups = unique(groups.filter((g) => !existing.has(g)));
    return items.map((itemId) => {
      const o = byId.get(itemId);
      if (!o || !o.accessible) return { itemId, success: false, notGroups: [], error: ITEM_MISSING };
      if (o.over_cap) {
        const message = `Unable to share item: an item can be shared with at most ${this.config.limits.itemMaxGroups} groups.`;
        return { itemId, success: false, notGroups: unique(groups), error: { code: 400, message }, capped: true };
      }
      const notGroups = [...o.denied, ...missingGroups];
      if (!notGroups.length) return { itemId, success: true, notGroups };
      const error = o.denied.length
        ? {
            code: 403,
            message: `You do not have permissions to ${verb} this item ${verb === 'share' ? 'with' : 'from'} group(s): ${o.denied.join(', ')}.`,
          }
        : { code: 400, message: `Group does not exist or is inaccessible: ${missingGroups.join(', ')}.` };
      return { itemId, success: false, notGroups, error };
    });
  }
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

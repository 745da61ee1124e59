import { Injectable } from '@nestjs/common';
import { ContentRepository } from '../content/content.repository';
import { ItemRow, toItem } from '../content/item-sql';
import { Caller, isAdminFor, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ID_PATTERN } from '../core/ids';
import { IdentityService } from '../identity/identity.service';
import { RELATIONSHIP_TYPES, relationshipType } from './relationship-types';
import { RelatedItemsDto, RelationshipDto } from './relationships.dto';
import { RelationshipKey, RelationshipsRepository } from './relationships.repository';

/** relatedItems answers at most this many items (ArcGIS pages nothing here; a relationship fan-out is small). */
export const RELATED_MAX = 1000;

const invalidType = (name: string) =>
  Errors.badRequest('Invalid relationship type.', [`'${name.slice(0, 64)}' is not one of ${Object.keys(RELATIONSHIP_TYPES).join(', ')}.`]);

/** Whether the caller counts as owning the item for a relationship rule: its owner, or an administrator over it. */
const owns = (caller: Caller, item: ItemRow) =>
  item.owner_id === caller.userId || isAdminFor(caller, item.org_id, Privilege.AdminUpdateItems);

/**
 * Relationships between items: directed (origin to destination), typed, made by a user. Both items must be visible
 * to their creator, of the types the relationship type names, and owned as its rule says; the creator (or an
 * administrator over their content) deletes them, and they go with either item.
 */
@Injectable()
export class RelationshipsService {
  constructor(
    private readonly repo: RelationshipsRepository,
    private readonly items: ContentRepository,
    private readonly identity: IdentityService,
  ) {}

  async add(caller: Caller, userName: string, p: RelationshipDto) {
    await this.requireSelf(caller, userName);
    const key = this.key(p);
    if (key.originId === key.destinationId)
      throw Errors.badRequest('Unable to add relationship.', ['An item cannot be related to itself.']);
    const [origin, destination] = await Promise.all([this.visible(caller, key.originId), this.visible(caller, key.destinationId)]);
    const type = RELATIONSHIP_TYPES[key.type];
    for (const [end, item, allowed] of [
      ['origin', origin, type.origin],
      ['destination', destination, type.destination],
    ] as const) {
      if (allowed && !allowed.includes(item.type)) {
        throw Errors.badRequest('Unable to add relationship.', [
          `A ${key.type} relationship's ${end} must be one of: ${allowed.join(', ')}; item '${item.id}' is a ${item.type}.`,
        ]);
      }
    }
    const ok =
      type.rule === 'all'
        ? owns(caller, origin) && owns(caller, destination)
        : type.rule === 'origin'
          ? owns(caller, origin)
          : type.rule === 'destination'
            ? owns(caller, destination)
            : owns(caller, origin) || owns(caller, destination);
    if (!ok) {
      const whose = { all: 'both items', origin: 'the origin item', destination: 'the destination item', either: 'one of the items' }[
        type.rule
      ];
      throw Errors.forbidden(`A ${key.type} relationship may only be made by the owner of ${whose}.`);
    }
    await this.repo.add(key, caller.userId);
    return { success: true };
  }

  async delete(caller: Caller, userName: string, p: RelationshipDto) {
    await this.requireSelf(caller, userName);
    const key = this.key(p);
    // Only a caller who sees the origin learns whether it has the relationship.
    await this.visible(caller, key.originId);
    const found = await this.repo.creatorOf(key);
    if (!found)
      throw Errors.badRequest('Relationship does not exist.', [
        `No ${key.type} relationship from '${key.originId}' to '${key.destinationId}'.`,
      ]);
    const mine = found.creator_id === caller.userId;
    if (!mine && !isAdminFor(caller, found.org_id, Privilege.AdminUpdateItems)) {
      throw Errors.forbidden('Only the user who made a relationship, or an administrator, may delete it.');
    }
    if (!(await this.repo.delete(key, null))) throw Errors.badRequest('Relationship does not exist.');
    return { success: true };
  }

  async related(caller: Caller | undefined, id: string, p: RelatedItemsDto) {
    if (!(await this.items.findVisibleItem(id, caller))) throw Errors.itemNotFound(id);
    const names = [...(p.relationshipType ?? []), ...(p.relationshipTypes ?? [])];
    if (!names.length)
      throw Errors.badRequest("'relationshipType' is required.", [`One or more of ${Object.keys(RELATIONSHIP_TYPES).join(', ')}.`]);
    const types = names.map((n) => relationshipType(n) ?? fail(invalidType(n)));
    const { total, rows } = await this.repo.related(id, [...new Set(types)], p.direction, caller, RELATED_MAX);
    return { total, relatedItems: rows.map(toItem) };
  }

  /** `content/users/<user>/...Relationship` acts for the caller themself; any other name is refused alike. */
  private async requireSelf(caller: Caller, userName: string): Promise<void> {
    await this.identity.actingFor(caller, userName, null, 'Relationships can only be managed as yourself.');
  }

  private key(p: RelationshipDto): RelationshipKey {
    const raw = p.relationshipType?.trim() || p.relationshipTypes?.trim();
    if (!raw) throw Errors.badRequest("'relationshipType' is required.", [`One of ${Object.keys(RELATIONSHIP_TYPES).join(', ')}.`]);
    const type = relationshipType(raw) ?? fail(invalidType(raw));
    for (const [name, v] of [
      ['originItemId', p.originItemId],
      ['destinationItemId', p.destinationItemId],
    ] as const) {
      if (!ID_PATTERN.test(v.trim())) throw Errors.itemNotFound(v.trim().slice(0, 64) || name);
    }
    const originId = p.originItemId.trim().toLowerCase();
    const destinationId = p.destinationItemId.trim().toLowerCase();
    return { originId, destinationId, type };
  }

  private async visible(caller: Caller, id: string): Promise<ItemRow> {
    const row = await this.items.findVisibleItem(id, caller);
    if (!row) throw Errors.itemNotFound(id);
    return row;
  }
}

function fail(e: Error): never {
  throw e;
}

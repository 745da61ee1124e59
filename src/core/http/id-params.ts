import type { PipeTransform } from '@nestjs/common';
import { Errors } from '../errors/arcgis-error';
import { ID_PATTERN, USERNAME_PATTERN } from '../ids';

/** Path ids are checked for shape before any query, so a typo gets a message that says what is wrong. */
export function itemIdParam(id: string): string {
  if (!ID_PATTERN.test(id)) {
    throw Errors.badRequest(
      'Item does not exist or is inaccessible.',
      [`'${id.slice(0, 64)}' is not a valid item id (32 hexadecimal characters).`],
      'CONT_0001',
    );
  }
  return id.toLowerCase();
}

export function groupIdParam(id: string): string {
  if (!ID_PATTERN.test(id)) {
    throw Errors.badRequest(
      'Group does not exist or is inaccessible.',
      [`'${id.slice(0, 64)}' is not a valid group id (32 hexadecimal characters).`],
      'COM_0003',
    );
  }
  return id.toLowerCase();
}

export function usernameParam(name: string): string {
  if (!USERNAME_PATTERN.test(name)) throw Errors.userNotFound(name.slice(0, 64));
  return name;
}

/**
 * The checks above as pipes for `@Param('id', ItemIdPipe)`. Nest runs a path parameter's pipe after the other parameter
 * decorators have read the request, so a missing token or an invalid body parameter is still reported first.
 */
const pipe = (check: (value: string) => string): PipeTransform<string, string> => ({ transform: (value) => check(value) });

export const ItemIdPipe = pipe(itemIdParam);
export const GroupIdPipe = pipe(groupIdParam);
export const UsernamePipe = pipe(usernameParam);

export interface OwnerItem {
  owner: string;
  id: string;
}

/**
 * `@Param(OwnerItemPipe) { owner, id }` for `users/:owner/items/:id` routes: one pipe, so the owner is checked before
 * the item as the URL nests them. Two `@Param` pipes would run in reverse order of declaration (TypeScript applies
 * parameter decorators last to first), naming a bad item id where a bad owner should come first.
 */
export const OwnerItemPipe: PipeTransform<Record<string, string>, OwnerItem> = {
  transform: (params) => ({ owner: usernameParam(params.owner), id: itemIdParam(params.id) }),
};

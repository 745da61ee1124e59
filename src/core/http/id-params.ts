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

import { Errors } from '../core/errors/arcgis-error';
import { ID_PATTERN } from '../core/ids';

/**
 * The folder segment arcgis-rest-js puts in an update's path when given a folderId. The item is found by its id
 * wherever it is filed, so the folder is only checked for a folder id's shape (32 hex characters).
 */
export function checkFolderSegment(folder: string): void {
  if (!ID_PATTERN.test(folder)) {
    throw Errors.badRequest('Folder does not exist.', [`'${folder.slice(0, 64)}' is not a folder id (32 hexadecimal characters).`]);
  }
}

import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { Errors } from '../core/errors/arcgis-error';
import { FileStore } from '../core/storage/file-store';

/** Image kinds a group thumbnail may be, by their first bytes, with the extension and type they are served with. */
const KINDS = [
  { magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], ext: 'png', mime: 'image/png' },
  { magic: [0xff, 0xd8, 0xff], ext: 'jpg', mime: 'image/jpeg' },
  { magic: [0x47, 0x49, 0x46, 0x38], ext: 'gif', mime: 'image/gif' },
] as const;

const MIME_BY_EXT: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif' };

/**
 * The stored name of an uploaded thumbnail: the upload's base name with the extension of what the bytes are. Bytes that
 * are no PNG, JPEG or GIF are refused, so nothing stored under a group can be served as anything but an image.
 */
export async function thumbnailName(localPath: string, uploadedName: string): Promise<string> {
  const head = Buffer.alloc(8);
  const file = await open(localPath, 'r');
  try {
    await file.read(head, 0, 8, 0);
  } finally {
    await file.close();
  }
  const kind = KINDS.find((k) => k.magic.every((b, i) => head[i] === b));
  if (!kind) throw Errors.badRequest('Invalid thumbnail.', ["'thumbnail' must be a PNG, JPEG or GIF image."]);
  const base = path.basename(uploadedName.replace(/\\/g, '/')).replace(/\.[^.]*$/, '') || 'thumbnail';
  return FileStore.safeName(`${base.slice(0, 100)}.${kind.ext}`);
}

/** The Content-Type of a stored thumbnail, from the extension thumbnailName gave it. */
export function thumbnailMime(name: string): string {
  return MIME_BY_EXT[path.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

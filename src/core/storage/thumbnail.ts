import { promises as fs } from 'node:fs';

/** The image kinds ArcGIS takes as thumbnails (PNG, GIF, JPEG), with the type each is served as. */
export const THUMBNAIL_TYPES = { png: 'image/png', gif: 'image/gif', jpg: 'image/jpeg' } as const;
export type ThumbnailKind = keyof typeof THUMBNAIL_TYPES;

/** The image kind a file's first bytes announce, or null: the name and the sender's Content-Type are never trusted. */
export async function sniffThumbnail(file: string): Promise<ThumbnailKind | null> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    const b = head.subarray(0, bytesRead);
    if (b.length >= 8 && b.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
    if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpg';
    if (b.length >= 6 && ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1'))) return 'gif';
    return null;
  } finally {
    await handle.close();
  }
}

/** The served type of a stored thumbnail, from the extension its name was given when it was stored. */
export function thumbnailMime(name: string): string {
  const ext = /\.([a-z]+)$/i.exec(name)?.[1].toLowerCase();
  return ext === 'png' ? THUMBNAIL_TYPES.png : ext === 'gif' ? THUMBNAIL_TYPES.gif : THUMBNAIL_TYPES.jpg;
}

/** The name a thumbnail is stored under: the uploaded one made safe, ending in the extension of what it really is. */
export function thumbnailName(safeName: string, kind: ThumbnailKind): string {
  const matches = kind === 'jpg' ? /\.jpe?g$/i.test(safeName) : safeName.toLowerCase().endsWith(`.${kind}`);
  return matches ? safeName : `${safeName.replace(/\.[^.]*$/, '') || 'thumbnail'}.${kind}`;
}

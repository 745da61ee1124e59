import type { Response } from 'express';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Errors } from '../core/errors/arcgis-error';
import { keepValidators } from '../core/http/cache';
import { sendStoredFile } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';

/** An info file or resource to send: a stored object, or text made on the spot (a generated iteminfo.xml). */
export type ItemFileReply =
  | { kind: 'stored'; key: string; fileName: string; contentType: string }
  | { kind: 'text'; text: string; fileName: string; contentType: string };

/** What a missing (or hidden) info file or resource answers: the same either way, so a private one is not revealed. */
export const fileNotFound = (what: 'Resource' | 'File', p: string) =>
  Errors.badRequest(`${what} does not exist or is inaccessible.`, [`No ${what.toLowerCase()} '${p.slice(0, 256)}' on this item.`]);

/** RFC 6266 / 5987: an ASCII fallback plus the exact UTF-8 name. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Sends an item's file. These are the owner's bytes under this origin, so a browser must never run them: nosniff, a
 * sandboxing CSP, and every type but raster images (which nosniff keeps images) as an attachment, SVG and XML included.
 */
export async function sendItemFile(files: FileStore, reply: ItemFileReply, res: Response, missing: () => Error): Promise<void> {
  // Before any header: a missing object answers the JSON envelope, not an attachment holding it.
  const object = reply.kind === 'stored' ? await files.stat(reply.key) : undefined;
  if (object === null) throw missing();
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  const inline = /^image\/(png|jpeg|gif|bmp|webp)$/.test(reply.contentType);
  res.setHeader('Content-Type', reply.contentType);
  res.setHeader('Content-Disposition', disposition(inline ? 'inline' : 'attachment', path.basename(reply.fileName)));
  if (reply.kind === 'text') {
    res.status(200).send(reply.text);
    return;
  }
  keepValidators(res);
  await sendStoredFile(
    files,
    { key: reply.key, object: object!, fileName: path.basename(reply.fileName), contentType: reply.contentType },
    res.req,
    res,
  );
}

/** Writes text to a temp file in DATA_DIR/tmp (swept like an upload's if the process dies) for the file store to adopt. */
export async function textFile(dataDir: string, text: string): Promise<string> {
  const file = path.resolve(dataDir, 'tmp', `upload-${randomUUID()}`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text, { flag: 'wx' });
  return file;
}

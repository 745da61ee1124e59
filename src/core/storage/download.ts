import type { Request, Response } from 'express';
import parseRange from 'range-parser';
import { pipeline } from 'node:stream/promises';
import { ByteRange, FileStore, StoredObject } from './file-store';

export interface Download {
  key: string;
  object: StoredObject;
  fileName: string;
  contentType: string;
}

/**
 * Sends a stored file with HTTP's resume and revalidation rules, whatever the backend:
 * - local: express's sendFile (the `send` library) answers Range, If-Range, If-None-Match, If-Match and
 *   If-Unmodified-Since from the file's ETag and Last-Modified;
 * - S3, S3_PRESIGNED_DOWNLOAD_S > 0: a 302 to a URL signed for that long; the bucket answers Range itself and the
 *   bytes never pass through the API;
 * - S3 otherwise: the same rules as send, evaluated against the object's own ETag and Last-Modified (one HEAD, done
 *   by the caller), then the one range asked for is streamed from GetObject, so memory stays flat whatever the size.
 * Headers the route owns (Content-Type, Content-Disposition) are set before; errors after the first byte only end
 * the connection, since the client already has a status.
 */
export async function sendStoredFile(files: FileStore, d: Download, req: Request, res: Response): Promise<void> {
  const local = files.localPath(d.key);
  if (local) return sendLocal(local, d, res);
  const url = await files.downloadUrl(d.key, d.fileName, d.contentType);
  if (url) {
    // The signed URL is a bearer credential for this one object until it expires: nothing may cache the redirect.
    res.setHeader('Cache-Control', 'no-store');
    res.removeHeader('Content-Disposition');
    res.redirect(302, url);
    return;
  }
  const { object } = d;
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', object.etag);
  res.setHeader('Last-Modified', object.lastModified.toUTCString());
  if (preconditionFailed(req, object)) {
    res.status(412).end();
    return;
  }
  // express's req.fresh: If-None-Match / If-Modified-Since against the headers just set (no-cache requests are never fresh).
  if (req.fresh) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Disposition');
    res.status(304).end();
    return;
  }
  let range: ByteRange | undefined;
  const header = req.headers.range;
  if (header && /^ *bytes=/.test(header) && rangeFresh(req, object)) {
    const ranges = parseRange(object.size, header, { combine: true });
    if (ranges === -1) {
      res.status(416).set('Content-Range', `bytes */${object.size}`).end();
      return;
    }
    // Malformed or several ranges: the whole file, as send does (a multipart/byteranges reply helps no ArcGIS client).
    if (ranges !== -2 && ranges.length === 1) range = { start: ranges[0].start, end: ranges[0].end };
  }
  const length = range ? range.end - range.start + 1 : object.size;
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${object.size}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', length);
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }
  const body = await files.read(d.key, range, object.etag);
  try {
    await pipeline(body, res);
  } catch {
    // The client went away, or the bucket broke off mid-object: either way the response is over.
    if (!res.destroyed) res.destroy();
  }
}

function sendLocal(file: string, d: Download, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    res.sendFile(file, { dotfiles: 'allow', acceptRanges: true, lastModified: true, cacheControl: false }, (err) => {
      // A client that stops reading mid-file is not an error of ours; the connection is already gone.
      if (!err || res.headersSent) return resolve();
      // HTTP's own answers to a range past the end or a failed If-Match: range clients act on the status.
      const status = (err as { status?: number }).status;
      if (status === 416) res.status(416).set('Content-Range', `bytes */${d.object.size}`).end();
      else if (status === 412) res.status(412).end();
      else return reject(err);
      resolve();
    }),
  );
}

const tokens = (h: string) =>
  h
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** If-Match and If-Unmodified-Since, as send evaluates them. */
function preconditionFailed(req: Request, o: StoredObject): boolean {
  const match = req.headers['if-match'];
  if (match) return match.trim() !== '*' && !tokens(match).some((m) => m === o.etag || m === `W/${o.etag}` || `W/${m}` === o.etag);
  const since = Date.parse(req.headers['if-unmodified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(o.lastModified.getTime() / 1000) * 1000 > since;
}

/** If-Range: a range applies only to the version the client already has part of, named by ETag or by date. */
function rangeFresh(req: Request, o: StoredObject): boolean {
  const ifRange = req.get('if-range');
  if (!ifRange) return true;
  if (ifRange.includes('"')) return ifRange.includes(o.etag);
  return Math.floor(o.lastModified.getTime() / 1000) * 1000 <= Date.parse(ifRange);
}

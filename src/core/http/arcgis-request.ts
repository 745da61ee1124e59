import type { Request } from 'express';
import { Caller } from '../auth/caller';

/** A multipart file part streamed to DATA_DIR/tmp (core/http/body.ts); deleted after the response unless adopted. */
export interface UploadedFile {
  fieldname: string;
  originalname: string;
  encoding: string;
  mimetype: string;
  size: number;
  destination: string;
  filename: string;
  path: string;
}

/** Values merged from the query string and the body (form, multipart): ArcGIS treats them alike. */
export type ArcParams = Record<string, string>;

export interface ArcgisRequest extends Request {
  arcParams: ArcParams;
  caller?: Caller;
  /** Set when the caller came from the pages' session cookie: the value the pages' scripts send back as X-CSRF-Token. */
  pageSession?: { csrf: string };
  uploadedFile?: UploadedFile;
  requestId?: string;
  /** A body that could not be parsed; raised by the request guard. */
  bodyError?: unknown;
}

export const ALLOWED_F = ['json', 'pjson'] as const;

export function isPretty(req: Request): boolean {
  return (req as ArcgisRequest).arcParams?.f === 'pjson';
}

/** Scheme, host and context path clients should use: PUBLIC_URL when set, else what the request came in on. */
export function publicRoot(req: Request, config: { publicUrl?: string; contextPath: string }): string {
  return `${config.publicUrl ?? `${req.protocol}://${req.get('host')}`}${config.contextPath}`;
}

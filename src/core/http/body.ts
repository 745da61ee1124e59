import express, { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { mkdirSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { AppConfig } from '../config/env';
import { Errors } from '../errors/arcgis-error';
import { ArcgisRequest } from './arcgis-request';

/** A value sent twice (k=a&k=b) means a list to ArcGIS clients, so it is joined the way the client joins arrays. */
function flatten(source: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.map(String).join(',');
  }
  return out;
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Express would answer a parse error itself (an HTML page); keeping it on the request lets the request guard
 * raise it, so it reaches the ArcGIS error filter like any other bad input.
 */
function deferErrors(mw: Middleware): Middleware {
  return (req, res, next) =>
    mw(req, res, (err?: unknown) => {
      if (err) (req as ArcgisRequest).bodyError = err;
      next();
    });
}

/**
 * Body parsing for the ArcGIS API: form bodies (flat keys, no nested objects), JSON, and multipart with the file
 * streamed to DATA_DIR/tmp. Parsing happens before the guards so a token sent in a multipart body is seen.
 * Temp files nobody adopted are deleted when the response ends.
 */
export function arcgisBodyMiddleware(config: AppConfig) {
  const tmp = path.resolve(config.dataDir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const upload = multer({
    dest: tmp,
    // Browsers and the client send UTF-8 file names; busboy would read them as latin1.
    defParamCharset: 'utf8',
    limits: { fileSize: config.limits.uploadMaxBytes, files: 1, fields: 200, fieldSize: 60 * 1024 * 1024 },
  }).any();
  return [
    deferErrors(express.urlencoded({ extended: false, limit: '60mb', parameterLimit: 10000 })),
    deferErrors(express.json({ limit: '60mb' })),
    (req: Request, res: Response, next: NextFunction) => {
      if ((req as ArcgisRequest).bodyError) return next();
      if (!req.is('multipart/form-data')) return next();
      upload(req, res, (err?: unknown) => {
        const files = (req.files as Express.Multer.File[] | undefined) ?? [];
        res.on('close', () => files.forEach((f) => fs.rm(f.path, { force: true }).catch(() => undefined)));
        if (err) {
          const e = err as { code?: string; message?: string };
          const message = e.code === 'LIMIT_FILE_SIZE' ? `File is larger than ${config.limits.uploadMaxBytes} bytes.` : String(e.message);
          (req as ArcgisRequest).bodyError = Object.assign(new Error(message), { status: 400 });
          return next();
        }
        (req as ArcgisRequest).uploadedFile = files.find((f) => f.fieldname === 'file') ?? files[0];
        next();
      });
    },
    (req: Request, _res: Response, next: NextFunction) => {
      const params = { ...flatten(req.query), ...flatten(req.body) };
      (req as ArcgisRequest).arcParams = params;
      // PostgreSQL text cannot hold NUL; no legitimate ArcGIS parameter carries one. A token is only hashed,
      // so a mangled one is left for the guard to call invalid (498).
      const withNul = Object.keys(params).find((k) => k.includes('\0') || (k !== 'token' && params[k].includes('\0')));
      if (withNul !== undefined) {
        (req as ArcgisRequest).bodyError = Errors.badRequest('Invalid parameter value.', [`Parameter '${withNul.replace(/\0/g, '')}' contains a NUL character.`]);
      }
      next();
    },
  ];
}

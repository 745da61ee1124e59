import busboy from 'busboy';
import express, { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, promises as fs } from 'node:fs';
import type { Socket } from 'node:net';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppConfig } from '../config/env';
import { ArcgisError, Errors } from '../errors/arcgis-error';
import { sendErrorReply } from '../errors/arcgis-exception.filter';
import { ArcgisRequest } from './arcgis-request';
import { clientNetwork } from './client-network';
import { ByteBudget, Hold, Spool, SpoolBudget } from './byte-budget';
import { requestToken } from './token';

/** Whether a token names a signed-in user; the body is read before the guards, so it asks the token store itself. */
export type TokenCheck = (token: string, req: Request) => Promise<boolean>;

/** The largest file an operation takes, and the setting that says so (named in the refusal). */
interface FileLimit {
  bytes: number;
  setting: string;
}

const tighter = (a: FileLimit, b: FileLimit): FileLimit => (b.bytes < a.bytes ? b : a);
const UPLOAD = (c: AppConfig): FileLimit => ({ bytes: c.limits.uploadMaxBytes, setting: 'UPLOAD_MAX_MB' });
const THUMBNAIL = (c: AppConfig): FileLimit => tighter(UPLOAD(c), { bytes: c.limits.thumbnailMaxBytes, setting: 'THUMBNAIL_MAX_KB' });

/**
 * The operations that take a file, relative to the REST base, with the largest file each takes. Only these accept a
 * file part; everywhere else one is refused before a byte of it is read (the body is parsed before routing, so this
 * cannot come from the controllers). `update` may carry a folder segment before items/ (arcgis-rest-js's folderId),
 * and `addItem` one before it (into a folder).
 */
const FILE_ROUTES: { path: RegExp; limit: (c: AppConfig) => FileLimit }[] = [
  { path: /^\/content\/users\/[^/]+\/(?:[^/]+\/)?addItem\/?$/, limit: UPLOAD },
  {
    path: /^\/content\/users\/[^/]+\/items\/[^/]+\/addPart\/?$/,
    limit: (c) => tighter(UPLOAD(c), { bytes: c.multipart.partMaxBytes, setting: 'MULTIPART_PART_MAX_MB' }),
  },
  { path: /^\/content\/users\/[^/]+\/(?:[^/]+\/)?items\/[^/]+\/update\/?$/i, limit: UPLOAD },
  {
    path: /^\/content\/users\/[^/]+\/items\/[^/]+\/(?:addResources|updateResources)\/?$/i,
    limit: (c) => tighter(UPLOAD(c), { bytes: c.limits.itemResourceMaxBytes, setting: 'ITEM_RESOURCE_MAX_MB' }),
  },
  {
    path: /^\/content\/users\/[^/]+\/items\/[^/]+\/updateinfo\/?$/i,
    limit: (c) => tighter(UPLOAD(c), { bytes: c.limits.itemInfoMaxBytes, setting: 'ITEM_INFO_MAX_KB' }),
  },
  // A group's and a user's thumbnail (updateGroup and updateUser send it as the file part `thumbnail`).
  { path: /^\/community\/(?:groups|users)\/[^/]+\/update\/?$/i, limit: THUMBNAIL },
  // A feature's attachment (the file part `attachment`), outside the REST base: FeatureServer/<layer>/<oid>/...
  {
    path: /^\/arcgis\/rest\/services\/[^/]+\/FeatureServer\/\d+\/\d+\/(?:addAttachment|updateAttachment)\/?$/i,
    limit: (c) => tighter(UPLOAD(c), { bytes: c.attachments.maxBytes, setting: 'ATTACHMENT_MAX_MB' }),
  },
];

/**
 * A body at most this size is read without a reservation: its memory is of the order of the request headers Node
 * already holds per connection, and small requests must not queue behind a flood of large ones.
 */
const SMALL_BODY = 64 * 1024;
/** Fields after the file are what a client appends after it (arcgis-rest-js: filename, overwrite, async, token). */
const AFTER_FILE_FIELDS = 64 * 1024;
/** Part headers and boundaries, and file data busboy holds before it reaches the temp file, on top of field bytes. */
const MULTIPART_SLACK = 256 * 1024;
/**
 * Non-file fields of a multipart body before its sender is known. arcgis-rest-js sends multipart only with a file and
 * puts the token last, so what precedes it is item metadata (title, tags, snippet, a description ArcGIS caps at 64 KB,
 * properties): well under this. Every byte an unknown sender makes the process read is heap until the next GC, so the
 * less it can send before being refused, the less a flood of them grows the process.
 */
const FIELDS_BEFORE_TOKEN = 512 * 1024;

/**
 * After a refusal the client may still be sending. Closing at once would make the kernel answer its next bytes with a
 * reset, which can discard our reply before the client reads it (fetch then reports "other side closed", not the 413).
 * So the socket is half-closed and left unread for a moment: the client reads the reply and our FIN, stops and closes;
 * the kernel's window holds back what it still sends. Reading and dropping instead (nginx's lingering close) would
 * allocate a buffer per chunk, which under a flood of refused bodies shows as heap growth.
 */
const LINGER_MS = 2000;

function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    this.end();
    // The HTTP parser reads the socket's handle directly, so stopping the stream alone would not stop the reads.
    (this as unknown as { _handle?: { readStop?: () => void } })._handle?.readStop?.();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/**
 * The client an upload is counted against: req.ip (TRUST_PROXY decides whether a forwarded address is believed), and
 * for IPv6 its /64, the block one subscriber is routed (per-address counting would hand an attacker 2^64 shares).
 */
function clientKey(req: Request): string {
  return clientNetwork(req.ip ?? req.socket.remoteAddress ?? '');
}

/** Every client address may spool this part of UPLOAD_BEFORE_TOKEN_MB whatever the others hold (see SpoolBudget). */
const SPOOL_SHARE = 4;

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;
const tooLarge = (detail: string) => new ArcgisError(413, 'Request entity too large.', [detail]);

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

function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  );
}

/**
 * Body parsing for the ArcGIS API, before the guards so a token sent in the body is seen: form bodies (flat keys),
 * JSON, and multipart with the file streamed to DATA_DIR/tmp. Every limit is enforced while reading, and a refusal is
 * answered at once (HTTP 413, or a 400 envelope for a malformed body) without reading the rest:
 *  - a body larger than its limit (Content-Length, or counted as it arrives): BODY_MAX_MB, UPLOAD_MAX_MB for a file;
 *  - more than BODY_MAX_FIELDS fields, or non-file fields larger than BODY_MAX_MB together;
 *  - a file on an operation that takes none, a second file, a file whose request carries an invalid token;
 *  - a compressed body (Content-Encoding other than identity): inflating would outgrow the hold sized from the wire;
 *  - process-wide, BODY_BUFFER_MB of body bytes in memory: beyond it bodies wait unread (see ByteBudget);
 *  - a file part that arrives before any token is only spooled within UPLOAD_BEFORE_TOKEN_MB across all requests,
 *    a quarter of it guaranteed to each client address (SpoolBudget). arcgis-rest-js appends the token after every
 *    other parameter, so its uploads send the file first; a token in the query string, a Bearer header or a field
 *    before the file is checked before a byte of the file is written;
 *  - a body from a sender not yet known that sends nothing for UPLOAD_IDLE_S: it holds memory or spool room that
 *    others wait for, and a trickle of it would hold that room until Node's requestTimeout (300 s).
 * Temp files nobody adopted are deleted when the response ends, and at once when the caller turns out unknown.
 */
export function arcgisBodyMiddleware(config: AppConfig, tokenIsValid: TokenCheck) {
  const tmp = path.resolve(config.dataDir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const { bodyMaxBytes, bodyMaxFields } = config.http;
  const memory = new ByteBudget(config.http.bodyBufferBytes);
  const spool = new SpoolBudget(config.http.uploadBeforeTokenBytes, Math.floor(config.http.uploadBeforeTokenBytes / SPOOL_SHARE));
  const idleMs = config.http.uploadIdleS * 1000;
  // No inflating: the memory hold is sized from the bytes on the wire, and ArcGIS clients never compress a request body,
  // so a compressed one is refused below before it reaches a parser; inflate: false keeps it so if that check moves.
  const urlencoded = express.urlencoded({ extended: false, limit: bodyMaxBytes, parameterLimit: bodyMaxFields, inflate: false });
  const json = express.json({ limit: bodyMaxBytes, inflate: false });

  return async (req: Request, res: Response, next: NextFunction) => {
    const r = req as ArcgisRequest;
    r.arcParams = flatten(req.query);
    if (!hasBody(req)) return finish(r, {}, next);

    let refused = false;
    let hold: Hold | undefined;
    let fileStream: { destroy(): void } | undefined;
    let bb: busboy.Busboy | undefined;
    const temps: string[] = [];
    const cleanup = () => {
      hold?.release();
      hold = undefined;
      for (const t of temps.splice(0)) fs.rm(t, { force: true }).catch(() => undefined);
    };
    res.on('close', () => {
      // A client that drops the connection mid-body ends nothing: req is not unpiped and busboy never sees the end, so
      // the temp file's write stream would wait forever with its descriptor open, keeping the unlinked file's bytes on
      // disk. Destroying busboy destroys the file stream it feeds, which tears down the pipeline to the temp file.
      if (bb && !bb.writableFinished) {
        refused = true;
        req.unpipe(bb);
        bb.destroy();
      }
      cleanup();
    });
    const refuse = (error: ArcgisError) => {
      if (refused || res.headersSent) return;
      refused = true;
      req.unpipe();
      fileStream?.destroy(); // closes the temp file's descriptor; cleanup removes the file
      cleanup();
      lingerOnClose(req.socket);
      sendErrorReply(req, res, error, { status: error.code === 413 ? 413 : 200, closeConnection: true });
    };

    const encoding = String(req.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      return refuse(
        new ArcgisError(415, 'Unsupported request body encoding.', [
          `Content-Encoding: ${encoding} is not accepted on a request body; send it uncompressed.`,
        ]),
      );
    }

    const relPath = req.path.startsWith(config.restBase)
      ? req.path.slice(config.restBase.length)
      : req.path.startsWith(`${config.contextPath}/arcgis/rest/`)
        ? req.path.slice(config.contextPath.length)
        : req.path;
    const multipart = !!req.is('multipart/form-data');
    const fileLimit = multipart ? FILE_ROUTES.find((r) => r.path.test(relPath))?.limit(config) : undefined;
    const fileRoute = fileLimit !== undefined;
    const fileMax = fileLimit?.bytes ?? 0;
    const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
    const max = fileMax + bodyMaxBytes;
    if (declared !== undefined && declared > max) {
      return refuse(
        tooLarge(
          `The body is ${declared} bytes; the limit is ${mb(max)} (${fileLimit ? `${fileLimit.setting} plus BODY_MAX_MB` : 'BODY_MAX_MB'}).`,
        ),
      );
    }
    // A token sent outside the body is checked before the body is read: a known sender gets the full field limit, and
    // a file for a bad token is refused at once (the guard would answer 498 only after the upload).
    const earlyToken = requestToken(r.arcParams, req.headers);
    let callerKnown = false;
    if (multipart && earlyToken) {
      callerKnown = await tokenIsValid(earlyToken, req);
      if (!callerKnown && fileRoute) return refuse(Errors.invalidToken());
    }

    const memoryMax = multipart && !callerKnown ? FIELDS_BEFORE_TOKEN + AFTER_FILE_FIELDS : bodyMaxBytes;
    const inMemory = declared === undefined ? memoryMax : Math.min(declared, memoryMax);
    if (inMemory > SMALL_BODY) {
      const abort = new AbortController();
      const onClose = () => abort.abort();
      req.once('close', onClose);
      try {
        hold = await memory.acquire(inMemory, abort.signal);
      } catch {
        return; // the client went away while waiting
      } finally {
        req.off('close', onClose);
      }
      if (res.writableEnded || req.destroyed) return cleanup();
    }

    // Reading starts here (a body waiting for memory above is not read, so it is not idle). Until the sender is known,
    // a body that stalls is refused: what it holds (memory, spool room) is given back to those waiting for it.
    let lastByteAt = Date.now();
    let idleTimer: NodeJS.Timeout | undefined;
    const watchIdle = () => {
      if (refused || req.readableEnded || callerKnown) return;
      // Not reading is not the sender's stall: the body is paused for a token check or for the temp file to catch up.
      if (checkingToken || req.isPaused()) lastByteAt = Date.now();
      const quiet = Date.now() - lastByteAt;
      if (quiet < idleMs) return void (idleTimer = setTimeout(watchIdle, idleMs - quiet).unref());
      refuse(
        new ArcgisError(408, 'Request timeout.', [
          `No part of the body arrived for ${config.http.uploadIdleS} s (UPLOAD_IDLE_S) before the token was known.`,
        ]),
      );
    };
    let checkingToken: Promise<void> | undefined;
    res.on('close', () => clearTimeout(idleTimer));
    idleTimer = setTimeout(watchIdle, idleMs).unref();
    if (req.headers.expect?.toLowerCase() === '100-continue' && !res.headersSent) res.writeContinue();
    if (!multipart) {
      const parser = req.is('application/json') ? json : urlencoded;
      let seen = 0;
      parser(req, res, (err?: unknown) => {
        if (refused) return;
        if (err) {
          const e = err as { type?: string; status?: number; message?: string };
          if (e.type === 'entity.too.large') return refuse(tooLarge(`The body is larger than ${mb(bodyMaxBytes)} (BODY_MAX_MB).`));
          if (e.type === 'parameters.too.many')
            return refuse(tooLarge(`The body has more than ${bodyMaxFields} parameters (BODY_MAX_FIELDS).`));
          // Malformed bodies go to the request guard as before, which raises them through the error filter.
          r.bodyError = err;
          return finish(r, {}, next);
        }
        finish(r, req.body, next);
      });
      // body-parser reads a body past its limit to the end before it reports (raw-body's limit is checked per chunk,
      // then the request is drained): a chunked body without Content-Length is counted here and cut at the limit.
      if (!req.readableEnded) {
        req.on('data', (chunk: Buffer) => {
          lastByteAt = Date.now();
          seen += chunk.length;
          if (seen > bodyMaxBytes) refuse(tooLarge(`The body is larger than ${mb(bodyMaxBytes)} (BODY_MAX_MB).`));
        });
      }
      return;
    }

    try {
      bb = busboy({
        headers: req.headers,
        // Browsers and the client send UTF-8 file names; busboy would read them as latin1.
        defParamCharset: 'utf8',
        limits: {
          fieldNameSize: 256,
          fieldSize: bodyMaxBytes,
          fields: bodyMaxFields,
          files: 1,
          parts: bodyMaxFields + 1,
          // busboy needs a positive bound; a route that takes no file refuses the part before reading it.
          fileSize: Math.max(fileMax, 1),
        },
      });
    } catch (e) {
      r.bodyError = Object.assign(new Error((e as Error).message), { status: 400 });
      return finish(r, {}, next);
    }
    const fields: Record<string, string | string[]> = {};
    let fieldBytes = 0;
    let fieldsAtFile: number | undefined;
    const fieldLimit = () =>
      fieldsAtFile !== undefined ? fieldsAtFile + AFTER_FILE_FIELDS : callerKnown ? bodyMaxBytes : FIELDS_BEFORE_TOKEN;
    const checkFields = () => {
      if (refused || checkingToken || fieldBytes <= fieldLimit()) return;
      const what =
        fieldsAtFile !== undefined
          ? `${AFTER_FILE_FIELDS} bytes after the file`
          : callerKnown
            ? `${mb(bodyMaxBytes)} (BODY_MAX_MB)`
            : `${mb(FIELDS_BEFORE_TOKEN)} before the token; send the token in the query string, an Authorization header or a field before the others`;
      refuse(tooLarge(`The fields of this body exceed ${what}.`));
    };
    let upload: Promise<void> | undefined;
    let spooled: Spool | undefined; // this request's file bytes counted in UPLOAD_BEFORE_TOKEN_MB
    let fileBytes = 0;
    const giveBackProvisional = () => spooled?.release();
    res.on('close', giveBackProvisional);

    bb.on('field', (name, value, info) => {
      if (refused) return;
      fieldBytes += name.length + value.length;
      if (info.valueTruncated) return refuse(tooLarge(`A field is larger than ${mb(bodyMaxBytes)} (BODY_MAX_MB).`));
      const prev = fields[name];
      fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      if (name === 'token' && !callerKnown && !checkingToken && fieldsAtFile === undefined) {
        // The larger field limit applies from here if the token is good: the body waits while it is checked. Unpiped,
        // not just paused: busboy's 'drain' (after any chunk it could not take at once) would resume a piped request,
        // and the body would flow through unchecked while the token store answers.
        req.unpipe(bb);
        req.pause();
        checkingToken = tokenIsValid(value, req).then((ok) => {
          callerKnown = ok;
          checkingToken = undefined;
          checkFields();
          if (!refused) req.pipe(bb!);
        });
      }
      checkFields();
    });
    bb.on('fieldsLimit', () => refuse(tooLarge(`The body has more than ${bodyMaxFields} fields (BODY_MAX_FIELDS).`)));
    bb.on('partsLimit', () => refuse(tooLarge(`The body has more than ${bodyMaxFields + 1} parts (BODY_MAX_FIELDS).`)));
    bb.on('filesLimit', () => refuse(Errors.badRequest('Too many files.', ['This operation takes one file.'])));
    bb.on('error', (err) => {
      if (refused) return;
      refused = true;
      req.unpipe(bb);
      cleanup();
      r.bodyError = Object.assign(new Error(err.message), { status: 400 });
      finish(r, {}, next);
    });
    bb.on('file', (fieldname, stream, info) => {
      // Destroying busboy (client gone) fails the file stream; the pipeline below reports that, and before it starts or
      // on a refused file nobody is listening, which would crash the process.
      stream.on('error', () => undefined);
      if (refused) return void stream.resume();
      if (!fileRoute) return refuse(Errors.badRequest('Too many files.', ['This operation takes no file.']));
      // What is in memory now is all the fields will hold, bar the few a client sends after the file.
      fieldsAtFile = fieldBytes;
      fileStream = stream;
      hold?.shrinkTo(fieldLimit());
      upload = (async () => {
        await checkingToken;
        const token = typeof fields.token === 'string' ? fields.token : undefined;
        if (!callerKnown && token) {
          if (!(await tokenIsValid(token, req))) return refuse(Errors.invalidToken());
          callerKnown = true;
        }
        if (refused) return void stream.resume();
        if (!callerKnown && config.http.uploadBeforeTokenBytes === 0) {
          return refuse(
            tooLarge(
              'A file is accepted only after the token (query string, Authorization header, or a field before the file); UPLOAD_BEFORE_TOKEN_MB is 0.',
            ),
          );
        }
        if (!callerKnown) {
          spooled = spool.open(clientKey(req), () =>
            refuse(
              tooLarge(
                `Files sent before the token are limited to ${mb(config.http.uploadBeforeTokenBytes)} at once (UPLOAD_BEFORE_TOKEN_MB); other addresses needed this upload's share. Send the token in the query string, an Authorization header, or a field before the file.`,
              ),
            ),
          );
        }
        const file = path.join(tmp, `upload-${randomUUID()}`);
        temps.push(file);
        let size = 0;
        const count = new Transform({
          transform: (chunk: Buffer, _enc, done) => {
            size += chunk.length;
            fileBytes += chunk.length;
            if (!callerKnown && !spooled!.take(chunk.length)) {
              refuse(
                tooLarge(
                  `Files sent before the token are limited to ${mb(config.http.uploadBeforeTokenBytes)} at once (UPLOAD_BEFORE_TOKEN_MB), a quarter of it per client address when others are waiting; send the token in the query string, an Authorization header, or a field before the file.`,
                ),
              );
              return done(new Error('refused'));
            }
            done(null, chunk);
          },
        });
        stream.on('limit', () => refuse(tooLarge(`The file is larger than ${mb(fileMax)} (${fileLimit!.setting}).`)));
        try {
          await pipeline(stream, count, createWriteStream(file, { flags: 'wx' }));
        } catch (e) {
          if (!refused) refuse(Errors.badRequest('Unable to read the uploaded file.', [(e as Error).message]));
          return;
        }
        if (stream.truncated) return;
        r.uploadedFile = {
          fieldname,
          originalname: info.filename ?? 'file',
          encoding: info.encoding,
          mimetype: info.mimeType,
          size,
          destination: tmp,
          filename: path.basename(file),
          path: file,
        };
      })();
    });
    const whenClosed = async () => {
      if (refused) return;
      await upload;
      if (refused) return;
      if (r.uploadedFile && !callerKnown) {
        // The token came after the file (arcgis-rest-js): the file stays only if it names a signed-in user.
        const token = typeof fields.token === 'string' ? fields.token : earlyToken;
        if (!token || !(await tokenIsValid(token, req))) {
          await fs.rm(r.uploadedFile.path, { force: true }).catch(() => undefined);
          r.uploadedFile = undefined;
        }
        giveBackProvisional();
      }
      if (!refused) finish(r, fields, next);
    };
    // An async listener's rejection would go unhandled and end the process: it becomes this request's reply instead.
    bb.on('close', () => void whenClosed().catch(() => refused || refuse(Errors.internal())));
    const checkFieldsInFlight = (atLeast: number) => {
      if (!refused && !checkingToken && atLeast > fieldLimit()) {
        fieldBytes = Math.max(fieldBytes, atLeast);
        checkFields();
      }
    };
    // busboy reports an oversized field only once it has read all of it (truncating as it goes), so the bytes that
    // are not file data are counted as they arrive: a 2 GB "field" is cut at BODY_MAX_MB, not at its end.
    let rawBytes = 0;
    req.on('data', (chunk: Buffer) => {
      lastByteAt = Date.now();
      rawBytes += chunk.length;
      if (rawBytes - fileBytes > fieldBytes + MULTIPART_SLACK) checkFieldsInFlight(rawBytes - fileBytes - MULTIPART_SLACK);
    });
    req.pipe(bb);
  };
}

/** Merges the body into the query parameters and checks what no parameter may contain. */
function finish(r: ArcgisRequest, body: unknown, next: NextFunction): void {
  const params = { ...r.arcParams, ...flatten(body) };
  r.arcParams = params;
  // PostgreSQL text cannot hold NUL; no legitimate ArcGIS parameter carries one. A token is only hashed,
  // so a mangled one is left for the guard to call invalid (498).
  const withNul = Object.keys(params).find((k) => k.includes('\0') || (k !== 'token' && params[k].includes('\0')));
  if (withNul !== undefined && !r.bodyError) {
    r.bodyError = Errors.badRequest('Invalid parameter value.', [`Parameter '${withNul.replace(/\0/g, '')}' contains a NUL character.`]);
  }
  next();
}

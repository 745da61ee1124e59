import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { InvalidInputError } from './invalid-input';
import type { Request, Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { ArcgisRequest, isPretty } from '../http/arcgis-request';
import { ERROR_REPLY } from '../http/cache';
import { ArcgisError, Errors } from './arcgis-error';

/**
 * Writes an error envelope: HTTP 200 as ArcGIS does, or 413 for a refused body. `closeConnection` is for a reply sent
 * before the body was read: the rest of it is not wanted, and a keep-alive connection would have to read it first.
 */
export function sendErrorReply(
  req: Request,
  res: Response,
  error: ArcgisError,
  opts: { status?: number; closeConnection?: boolean } = {},
): void {
  res.locals[ERROR_REPLY] = true;
  if (opts.closeConnection) res.setHeader('Connection', 'close');
  res
    .status(opts.status ?? 200)
    .type('application/json')
    .send(JSON.stringify(error.toEnvelope(), null, isPretty(req) ? 2 : undefined));
}

/**
 * The one place errors become replies. ArcGIS answers errors with HTTP 200 and the envelope
 * (the client's token refresh depends on it); unknown errors are logged and answered with a generic envelope.
 */
@Catch()
export class ArcgisExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ArcgisExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<ArcgisRequest>();
    const res = ctx.getResponse<Response>();
    const error = this.toArcgisError(exception, req);
    if (res.headersSent) {
      // A stream failed half-way: the status line is gone, so the only honest thing left is to cut the connection.
      res.destroy();
      return;
    }
    sendErrorReply(req, res, error);
  }

  private toArcgisError(exception: unknown, req: ArcgisRequest): ArcgisError {
    if (exception instanceof ArcgisError) return exception;
    if (exception instanceof InvalidInputError) return Errors.badRequest(exception.summary, exception.details);
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) return Errors.invalidUrl(req.path);
      if (status === 413) return Errors.badRequest('Request entity too large.', [exception.message]);
      if (status < 500) return Errors.badRequest('Unable to complete operation.', [exception.message]);
    }
    const raw = exception as { type?: string; status?: number; message?: string; code?: unknown };
    // Last line of defence: a value Postgres refuses (class 22) or a constraint it enforces (class 23) is bad
    // input that slipped past validation, not a server fault. It is logged so the validation can be tightened.
    if (exception instanceof QueryFailedError && typeof raw.code === 'string' && /^2[23]/.test(raw.code)) {
      this.logger.warn({ err: exception, requestId: req.requestId, path: req.path }, 'database refused a value');
      return raw.code.startsWith('22')
        ? Errors.badRequest('Invalid parameter value.', ['A value is out of range or not valid for its field.'])
        : Errors.badRequest('Unable to complete operation.', [
            'The request conflicts with existing data; it may already exist or have been removed.',
          ]);
    }
    // body-parser and busboy errors carry a status or a code of their own; they are the caller's fault.
    if (raw?.type === 'entity.parse.failed') return Errors.badRequest('Unable to parse the request body.', [String(raw.message)]);
    if (raw?.type === 'entity.too.large') return Errors.badRequest('Request entity too large.', [String(raw.message)]);
    if (typeof raw?.status === 'number' && raw.status >= 400 && raw.status < 500) {
      return Errors.badRequest('Unable to complete operation.', [String(raw.message)]);
    }
    this.logger.error({ err: exception, requestId: req.requestId, path: req.path }, 'unhandled error');
    return Errors.internal();
  }
}

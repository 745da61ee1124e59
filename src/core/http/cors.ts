import type { CorsOptions, CorsOptionsDelegate } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { Request } from 'express';

/**
 * CORS for every origin, as ArcGIS serves it: browser apps on any host call the API with a token (parameter or
 * Authorization / X-Esri-Authorization header, whose preflight the cors package answers by echoing the requested
 * headers). Credentials (cookies) only for the configured origins: reflecting any origin with credentials would let
 * every web page act with a signed-in visitor's cookies (Bull Board's session).
 */
export function corsOptions(credentialOrigins: readonly string[]): CorsOptionsDelegate<Request> {
  const trusted = new Set(credentialOrigins);
  return (req, callback) => {
    const origin = req.headers.origin;
    const options: CorsOptions = {
      // true reflects the request's Origin and adds Vary: Origin, so a cache never hands one origin's answer to another.
      origin: true,
      credentials: typeof origin === 'string' && trusted.has(origin.toLowerCase()),
      exposedHeaders: ['Content-Disposition', 'X-Request-Id'],
      maxAge: 600,
    };
    callback(null, options);
  };
}

import { All, applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { Caller } from '../auth/caller';
import { Errors } from '../errors/arcgis-error';
import { ArcgisRequest } from './arcgis-request';

export const PUBLIC_KEY = 'arcgis:public';
export const RAW_KEY = 'arcgis:raw';
export const NOT_ARCGIS_KEY = 'arcgis:not-arcgis';
export const FORMATS_KEY = 'arcgis:formats';
export const PAGE_LINK_KEY = 'arcgis:page-link';
export const GET_POST_KEY = 'arcgis:get-post';

/** Anonymous callers allowed (a token, if sent, must still be valid). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
/** The handler writes the response itself (file streams). */
export const RawResponse = () => SetMetadata(RAW_KEY, true);
/** Not part of the ArcGIS API (health): no `f`, no token handling, no envelope formatting. */
export const NotArcgis = () => SetMetadata(NOT_ARCGIS_KEY, true);

/**
 * A read the directory pages link to (a file download, a query as JSON): the pages' session cookie may authenticate a
 * top-level navigation to it without the CSRF header. Only for routes that change nothing, even on GET.
 */
export const PageLink = () => SetMetadata(PAGE_LINK_KEY, true);

/** Values of `f` the operation serves besides json and pjson (e.g. geojson on query). */
export const Formats = (...formats: string[]) => SetMetadata(FORMATS_KEY, ['json', 'pjson', ...formats]);

/** The authenticated caller; routes without @Public() never reach the handler without one. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const caller = ctx.switchToHttp().getRequest<ArcgisRequest>().caller;
  if (!caller) throw Errors.tokenRequired();
  return caller;
});

/** The caller, or undefined for an anonymous request. */
export const OptionalCaller = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Caller | undefined => ctx.switchToHttp().getRequest<ArcgisRequest>().caller,
);

/**
 * An ArcGIS operation: the client uses POST where the docs say GET and vice versa, so both are served
 * (other methods are refused by FormatGuard).
 */
export const Operation = (path: string) => All(path);

/**
 * An operation on GET and POST whose path shadows fixed operations of other modules (`content/users/<u>/<folderId>`
 * matches `.../addItem`): any other method is an unknown URL, as it is for those operations, not a refused method.
 */
export const GetOrPost = (path: string) => applyDecorators(All(path), SetMetadata(GET_POST_KEY, true));

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { Errors } from '../errors/arcgis-error';
import { ArcgisRequest } from './arcgis-request';
import { absent, readBool, readInt } from './param-values';

type Ctor<T> = new () => T;

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => [
    ...Object.values(e.constraints ?? {}).map((m) => (prefix ? `${prefix}${m}` : m)),
    ...flatten(e.children ?? [], `${prefix}${e.property}.`),
  ]);
}

/** Validates ArcGIS parameters (query and body merged, all strings) into a DTO; failures become a 400 envelope. */
export function validateParams<T extends object>(dto: Ctor<T>, params: Record<string, string>): T {
  // A transform's undefined (a blank number or boolean) leaves the property unset, so its default applies.
  const instance = plainToInstance(dto, params, { exposeDefaultValues: true, exposeUnsetFields: false });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length) throw Errors.badRequest('Invalid or missing input parameters.', flatten(errors));
  return instance;
}

/** `@Params(SomeDto) p: SomeDto` — the merged, validated request parameters. */
export const Params = createParamDecorator((dto: Ctor<object>, ctx: ExecutionContext) =>
  validateParams(dto, ctx.switchToHttp().getRequest<ArcgisRequest>().arcParams),
);

// --- transforms for values that always arrive as strings ---

/** Comma-joined list (how the client sends arrays); blanks dropped, entries trimmed. */
export const CsvList = () =>
  Transform(({ value }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0)
      : value,
  );

/** Text read by `read` as param-values reads it: blank is not given; unreadable stays a string for validation to name. */
const readWith = (read: (raw: string) => unknown) =>
  Transform(({ value }) => (typeof value !== 'string' ? value : absent(value) ? undefined : (read(value) ?? value)));

/** "true"/"false" as boolParam reads them. */
export const BoolParam = () => readWith(readBool);

/** A whole number as intParam reads it. */
export const IntParam = () => readWith(readInt);

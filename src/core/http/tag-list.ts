import { AppConfig } from '../config/env';
import { Errors } from '../errors/arcgis-error';

/**
 * The bounds every tag list shares (an item's tags and typeKeywords, a group's tags, a user's tags): at most
 * TAGS_MAX_COUNT values of at most TAG_MAX_CHARS characters each, ArcGIS's 128 and 256. Refused as a bad parameter,
 * naming it, before anything is written.
 */
export function checkTags(name: string, values: string[] | undefined, limits: AppConfig['limits']): void {
  if (!values) return;
  const { tagsMaxCount: count, tagMaxChars: chars } = limits;
  if (values.length > count) {
    throw Errors.badRequest('Invalid or missing input parameters.', [`'${name}' may hold at most ${count} values (TAGS_MAX_COUNT).`]);
  }
  // Characters as people count them: an emoji is one, not the two UTF-16 units of .length.
  const long = values.find((v) => [...v].length > chars);
  if (long !== undefined) {
    throw Errors.badRequest('Invalid or missing input parameters.', [
      `Each value of '${name}' must be at most ${chars} characters (TAG_MAX_CHARS); one has ${[...long].length}.`,
    ]);
  }
}

import { Errors } from '../core/errors/arcgis-error';
import { requiredJsonParam } from '../core/http/param-values';

/**
 * `portals/<id>/settings` before an administrator changes anything, in ArcGIS's shape. Only informationalBanner can be
 * changed here; the others are what this portal has (no OAuth redirects, no helper services, the world extent).
 */
export const DEFAULT_SETTINGS = {
  allowedRedirectUris: [] as string[],
  defaultExtent: {
    xmin: -20037508.342788905,
    ymin: -30240971.458386205,
    xmax: 20037508.342788905,
    ymax: 18398924.324241478,
    spatialReference: { wkid: 102100 },
  },
  helperServices: {},
  informationalBanner: { text: '', bgColor: 'grey', fontColor: 'black', enabled: false },
};

const BANNER_TEXT_MAX = 2048;
const COLOR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,32})$/;

function invalidBanner(detail: string) {
  return Errors.badRequest("Invalid value for parameter 'informationalBanner'.", [detail]);
}

/** The banner ArcGIS shows atop its pages: {text, bgColor, fontColor, enabled}; keys not given keep the default. */
export function informationalBanner(raw: string) {
  const b = requiredJsonParam<Record<string, unknown>>('informationalBanner', raw, 'object');
  const unknown = Object.keys(b).filter((k) => !['text', 'bgColor', 'fontColor', 'enabled'].includes(k));
  if (unknown.length)
    throw invalidBanner(`Unknown keys: ${unknown.slice(0, 8).join(', ')}; the banner has text, bgColor, fontColor, enabled.`);
  const banner = { ...DEFAULT_SETTINGS.informationalBanner };
  if (b.text !== undefined) {
    if (typeof b.text !== 'string' || b.text.length > BANNER_TEXT_MAX)
      throw invalidBanner(`'text' must be a string of at most ${BANNER_TEXT_MAX} characters.`);
    banner.text = b.text;
  }
  for (const key of ['bgColor', 'fontColor'] as const) {
    if (b[key] === undefined) continue;
    const v = b[key];
    if (typeof v !== 'string' || !COLOR.test(v)) throw invalidBanner(`'${key}' must be a CSS colour name or #hex value.`);
    banner[key] = v;
  }
  if (b.enabled !== undefined) {
    if (typeof b.enabled !== 'boolean') throw invalidBanner("'enabled' must be true or false.");
    banner.enabled = b.enabled;
  }
  return banner;
}

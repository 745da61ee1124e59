import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as featureService from '@esri/arcgis-rest-feature-service';
import * as portal from '@esri/arcgis-rest-portal';

/**
 * Every request-sending function of @esri/arcgis-rest-portal and @esri/arcgis-rest-feature-service is driven, through
 * the library, by a compat spec (test/compat/), which checks its reply and reads the state back. This guard fails when
 * a library gains a function (an upgrade) or a spec stops calling one; the compat specs themselves prove that each
 * call works.
 */
const PORTAL_SENDS_NOTHING: Record<string, string> = {
  getItemBaseUrl: 'builds a URL',
  getPortalUrl: 'builds a URL',
  getSharingUrl: 'builds a URL',
  getUserUrl: 'builds a URL',
  isBBox: 'inspects an extent',
  bboxToString: 'formats an extent',
  decorateThumbnail: 'rewrites an item object',
  isItemOwner: 'compares an item owner with a name',
  scrubControlChars: 'cleans a string',
  SearchQueryBuilder: 'builds a q string',
};

const FEATURE_SERVICE_SENDS_NOTHING: Record<string, string> = {
  parseServiceUrl: 'cuts a layer URL back to its service',
};

const COMPAT = path.resolve(__dirname, '../compat');
const specs = readdirSync(COMPAT)
  .filter((f) => f.endsWith('.spec.ts'))
  .map((f) => ({ f, text: readFileSync(path.join(COMPAT, f), 'utf8') }));

/** The compat specs that import `name` from the library `pkg` and call it. */
function drivenBy(pkg: string, name: string): string[] {
  const from = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*'${pkg.replace('/', '\\/')}'`, 'g');
  return specs
    .filter(({ text }) => {
      const imports = [...text.matchAll(from)].flatMap((m) => m[1].split(',').map((s) => s.trim()));
      return imports.includes(name) && new RegExp(`\\b${name}\\(`).test(text.replace(/import\s*\{[^}]*\}\s*from[^;]*;/g, ''));
    })
    .map(({ f }) => f);
}

describe.each([
  { pkg: '@esri/arcgis-rest-portal', lib: portal as Record<string, unknown>, sendsNothing: PORTAL_SENDS_NOTHING, least: 70 },
  {
    pkg: '@esri/arcgis-rest-feature-service',
    lib: featureService as Record<string, unknown>,
    sendsNothing: FEATURE_SERVICE_SENDS_NOTHING,
    least: 20,
  },
])('$pkg coverage by the compat specs', ({ pkg, lib, sendsNothing, least }) => {
  const functions = Object.entries(lib)
    .filter(([, v]) => typeof v === 'function')
    .map(([k]) => k);

  it('lists only functions the library has as sending nothing', () => {
    expect(Object.keys(sendsNothing).filter((k) => !functions.includes(k))).toEqual([]);
  });

  it('drives every request-sending function in some compat spec', () => {
    const sending = functions.filter((k) => !(k in sendsNothing));
    expect(sending.length).toBeGreaterThan(least);
    expect(sending.filter((k) => drivenBy(pkg, k).length === 0)).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as portal from '@esri/arcgis-rest-portal';

/**
 * Every request-sending function of @esri/arcgis-rest-portal is driven, through the library, by a compat spec
 * (test/compat/), which checks its reply and reads the state back. This guard fails when the library gains a function
 * (an upgrade) or a spec stops calling one; the compat specs themselves prove that each call works.
 */
const SENDS_NOTHING: Record<string, string> = {
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

const COMPAT = path.resolve(__dirname, '../compat');
const specs = readdirSync(COMPAT)
  .filter((f) => f.endsWith('.spec.ts'))
  .map((f) => ({ f, text: readFileSync(path.join(COMPAT, f), 'utf8') }));

/** Names a spec imports from the library, and whether it calls each. */
function drivenBy(name: string): string[] {
  return specs
    .filter(({ text }) => {
      const imports = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@esri\/arcgis-rest-portal'/g)].flatMap((m) =>
        m[1].split(',').map((s) => s.trim()),
      );
      return imports.includes(name) && new RegExp(`\\b${name}\\(`).test(text.replace(/import\s*\{[^}]*\}\s*from[^;]*;/g, ''));
    })
    .map(({ f }) => f);
}

describe('@esri/arcgis-rest-portal coverage by the compat specs', () => {
  const functions = Object.entries(portal)
    .filter(([, v]) => typeof v === 'function')
    .map(([k]) => k);

  it('lists only functions the library has as sending nothing', () => {
    expect(Object.keys(SENDS_NOTHING).filter((k) => !functions.includes(k))).toEqual([]);
  });

  it('drives every request-sending function in some compat spec', () => {
    const sending = functions.filter((k) => !(k in SENDS_NOTHING));
    expect(sending.length).toBeGreaterThan(70);
    expect(sending.filter((k) => drivenBy(k).length === 0)).toEqual([]);
  });
});

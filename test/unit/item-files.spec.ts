import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { checkImage, checkPath, infoType, itemInfoXml, resourceType, storablePath } from '../../src/content/item-files';
import { RELATIONSHIP_TYPES, relationshipType } from '../../src/relationships/relationship-types';

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof ArcgisError ? e.message : `not an ArcgisError: ${String(e)}`;
  }
  return 'accepted';
};

describe('item file paths', () => {
  it('keeps folders and names of letters, digits, space and _-.(), trimming outer slashes', () => {
    expect(checkPath('fileName', 'images/logo (1).png')).toBe('images/logo (1).png');
    expect(checkPath('fileName', '/a/b/c.json/')).toBe('a/b/c.json');
    expect(checkPath('fileName', 'Zürich_图.json')).toBe('Zürich_图.json');
  });

  it.each([
    '..',
    '../x.json',
    'a/../b.json',
    '.hidden.json',
    'a/.b/c.json',
    'a//b.json',
    'a\\b.json',
    'a\u0000.json',
    'a\u202e.json',
    '',
    '   ',
    'x'.repeat(129),
    Array.from({ length: 9 }, () => 'a').join('/'),
  ])('refuses %j', (p) => {
    expect(refused(() => checkPath('fileName', p))).toBe("'fileName' is not a valid file name.");
  });

  it('types resources and info files by ArcGIS’s lists, refusing what a browser runs', () => {
    expect(resourceType('a/b.JSON')).toBe('application/json');
    expect(resourceType('icon.svg')).toBe('image/svg+xml');
    expect(infoType('metadata/metadata.xml')).toBe('application/xml');
    for (const name of ['x.html', 'x.htm', 'x.js', 'x', 'x.json.exe']) {
      expect(refused(() => resourceType(name))).toBe('File type not allowed for item resources.');
    }
    expect(refused(() => infoType('x.svg'))).toBe('File type not allowed for item info files.');
  });

  it('never looks up a URL path that no stored file can have', () => {
    expect(storablePath('a.json')).toBe(true);
    expect(storablePath('')).toBe(false);
    expect(storablePath('a\u0000b')).toBe(false);
    expect(storablePath('x'.repeat(257))).toBe(false);
  });
});

describe('thumbnail images', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'item-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (bytes: Buffer) => {
    const f = path.join(dir, `f${Math.random()}`);
    writeFileSync(f, bytes);
    return f;
  };
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  it('accepts an image whose first bytes match its name, and refuses any other', async () => {
    await expect(checkImage(file(png), 'a.png')).resolves.toBeUndefined();
    await expect(checkImage(file(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'a.JPG')).resolves.toBeUndefined();
    await expect(checkImage(file(Buffer.from('GIF89a')), 'a.gif')).resolves.toBeUndefined();
    await expect(checkImage(file(png), 'a.jpg')).rejects.toThrow('Invalid thumbnail.');
    await expect(checkImage(file(Buffer.from('<svg/>')), 'a.png')).rejects.toThrow('Invalid thumbnail.');
    await expect(checkImage(file(Buffer.alloc(0)), 'a.png')).rejects.toThrow('Invalid thumbnail.');
  });
});

describe('iteminfo.xml', () => {
  it('escapes every value and drops characters XML cannot hold', () => {
    const xml = itemInfoXml({
      id: 'abc',
      title: 'a & <b> "c"',
      type: 'Web Map',
      name: null,
      snippet: 'bell\u0007',
      description: ']]><x/>',
      tags: ["o'brien"],
      typeKeywords: [],
      accessInformation: null,
      licenseInfo: null,
      culture: null,
      url: null,
      extent: [
        [1, 2],
        [3, 4],
      ],
      spatialReference: null,
      thumbnail: 'thumbnail/t.png',
    });
    expect(xml).toContain('<title>a &amp; &lt;b&gt; &quot;c&quot;</title>');
    expect(xml).toContain('<summary>bell</summary>');
    expect(xml).toContain('<description>]]&gt;&lt;x/&gt;</description>');
    expect(xml).toContain('<tag>o&apos;brien</tag>');
    expect(xml).toContain('<extent><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax><ymax>4</ymax></extent>');
    expect(xml).toContain('Culture="en-us"');
  });
});

describe('relationship types', () => {
  it('are arcgis-rest-portal’s ItemRelationshipType, found in any case', () => {
    expect(Object.keys(RELATIONSHIP_TYPES)).toHaveLength(26);
    expect(relationshipType('map2service')).toBe('Map2Service');
    expect(relationshipType(' WMA2CODE ')).toBe('WMA2Code');
    expect(relationshipType('Map2Nothing')).toBeUndefined();
  });
});

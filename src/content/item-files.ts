import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { Errors } from '../core/errors/arcgis-error';
import { OCTET_STREAM } from '../core/storage/item-mime';

/**
 * Names and types of an item's resources, info files and thumbnail. A path is a few folders and a file name, each
 * segment letters, digits, space and `_-.()`, never starting with a dot, so no path can climb out of its item or be
 * mistaken for a folder of ours; the bytes live under keys of their own (FileStore.itemFileKey), never at the path.
 */
const SEGMENT = /^(?!\.)[\p{L}\p{N}_\-. ()]{1,128}$/u;
const MAX_DEPTH = 8;
export const MAX_PATH = 256;

/** ArcGIS's resource formats (Add Resources, Update Resources). */
const RESOURCE_TYPES: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  txt: 'text/plain; charset=utf-8',
  png: 'image/png',
  pbf: 'application/x-protobuf',
  zip: 'application/zip',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  gz: 'application/gzip',
  svg: 'image/svg+xml',
  svgz: 'image/svg+xml',
  geodatabase: OCTET_STREAM,
  glb: 'model/gltf-binary',
  stylx: OCTET_STREAM,
};

/** ArcGIS's info file formats (Update Info). */
const INFO_TYPES: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  cfg: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  pbf: 'application/x-protobuf',
  png: 'image/png',
};

const THUMBNAIL_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  webp: 'image/webp',
};

const ext = (name: string) => path.extname(name).slice(1).toLowerCase();

/** A path of `/`-separated segments as described above, or the error naming the parameter. */
export function checkPath(param: string, value: string): string {
  const p = value.trim().replace(/^\/+|\/+$/g, '');
  const segments = p.split('/');
  if (!p || p.length > MAX_PATH || segments.length > MAX_DEPTH || !segments.every((s) => SEGMENT.test(s))) {
    throw Errors.badRequest(`'${param}' is not a valid file name.`, [
      `'${value.slice(0, 64)}': use at most ${MAX_DEPTH} segments of letters, digits, spaces and _ - . ( ), none starting with a dot, ${MAX_PATH} characters in all.`,
    ]);
  }
  return p;
}

/** Whether a path read from a URL could name a stored file at all (else it is simply not found, never looked up). */
export function storablePath(p: string): boolean {
  return p.length > 0 && p.length <= MAX_PATH && !p.includes('\0');
}

function typeOf(table: Record<string, string>, what: string, name: string): string {
  const e = ext(name);
  if (!Object.hasOwn(table, e)) {
    throw Errors.badRequest(`File type not allowed for ${what}.`, [
      `'${name.slice(0, 64)}': allowed are .${Object.keys(table).join(', .')}.`,
    ]);
  }
  return table[e];
}

export const resourceType = (name: string) => typeOf(RESOURCE_TYPES, 'item resources', name);
export const infoType = (name: string) => typeOf(INFO_TYPES, 'item info files', name);
export const thumbnailType = (name: string) => typeOf(THUMBNAIL_TYPES, 'thumbnails', name);

/** The image type a file's first bytes say it is, if any of the thumbnail types. */
function sniffImage(head: Buffer): string | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * A thumbnail must be the image its name says: it is served inline (an <img> source) from this origin, so what is not
 * an image of that type is refused rather than stored.
 */
export async function checkImage(file: string, name: string): Promise<void> {
  const want = thumbnailType(name);
  const fh = await open(file, 'r');
  const head = Buffer.alloc(16);
  try {
    await fh.read(head, 0, 16, 0);
  } finally {
    await fh.close();
  }
  if (sniffImage(head) !== want) {
    throw Errors.badRequest('Invalid thumbnail.', [`'${name.slice(0, 64)}' is not a ${want.slice(6).toUpperCase()} image.`]);
  }
}

const XML_ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };
// Characters XML 1.0 cannot hold at all (C0 controls but tab, CR, LF; lone surrogates), dropped from generated text.
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const xml = (v: unknown) =>
  String(v ?? '')
    .replace(NOT_XML, '')
    .replace(/[<>&"']/g, (c) => XML_ESCAPES[c]);

export interface ItemInfoSource {
  id: string;
  title: string;
  type: string;
  name: string | null;
  snippet: string;
  description: string;
  tags: string[];
  typeKeywords: string[];
  accessInformation: string | null;
  licenseInfo: string | null;
  culture: string | null;
  url: string | null;
  extent: number[][];
  spatialReference: string | null;
  thumbnail: string | null;
}

/** `info/iteminfo.xml` as ArcGIS writes it from the item's properties, for items that were given none of their own. */
export function itemInfoXml(i: ItemInfoSource): string {
  const [[xmin, ymin] = [], [xmax, ymax] = []] = i.extent ?? [];
  const list = (tag: string, values: string[]) => values.map((v) => `<${tag}>${xml(v)}</${tag}>`).join('');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<ESRI_ItemInformation Culture="${xml(i.culture ?? 'en-us')}">`,
    `<name>${xml(i.name)}</name>`,
    `<guid>${xml(i.id)}</guid>`,
    `<title>${xml(i.title)}</title>`,
    `<type>${xml(i.type)}</type>`,
    `<typekeywords>${list('typekeyword', i.typeKeywords)}</typekeywords>`,
    `<summary>${xml(i.snippet)}</summary>`,
    `<description>${xml(i.description)}</description>`,
    `<tags>${list('tag', i.tags)}</tags>`,
    `<thumbnail>${xml(i.thumbnail)}</thumbnail>`,
    `<url>${xml(i.url)}</url>`,
    `<extent>${xmin === undefined ? '' : `<xmin>${xml(xmin)}</xmin><ymin>${xml(ymin)}</ymin><xmax>${xml(xmax)}</xmax><ymax>${xml(ymax)}</ymax>`}</extent>`,
    `<spatialreference>${xml(i.spatialReference)}</spatialreference>`,
    `<accessinformation>${xml(i.accessInformation)}</accessinformation>`,
    `<licenseinfo>${xml(i.licenseInfo)}</licenseinfo>`,
    '</ESRI_ItemInformation>',
    '',
  ].join('\n');
}

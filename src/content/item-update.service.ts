import { Inject, Injectable, Logger } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventBy, OutboxEvent } from '../core/events/outbox.repository';
import { UploadedFile } from '../core/http/arcgis-request';
import { jsonParam, OnInvalid } from '../core/http/param-values';
import { checkTags } from '../core/http/tag-list';
import { FileStore } from '../core/storage/file-store';
import { itemFileMime } from '../core/storage/item-mime';
import { ContentRepository } from './content.repository';
import { parseExtent } from './content.service';
import { ItemEditors } from './item-editors';
import { fileNotFound, ItemFileReply } from './item-file-reply';
import { checkImage, checkPath, infoType, itemInfoXml, storablePath, thumbnailType } from './item-files';
import { ItemFilesRepository } from './item-files.repository';
import { ItemPatch, ReplacedKeys } from './item-patch';
import { ItemRow } from './item-sql';
import { UpdateInfoDto, UpdateItemDto } from './item-update.dto';

const notAnObject: OnInvalid = (p) => Errors.badRequest(`'${p.name}' is not a valid JSON object.`, [p.reason ?? p.message]);
const noFetch = (param: string, instead: string) =>
  Errors.badRequest(`'${param}' is not supported.`, [`This service fetches nothing from other hosts: ${instead}`]);

const METADATA = 'metadata/metadata.xml';
const ITEM_INFO = 'iteminfo.xml';

/** An empty value: ignored, or with clearEmptyFields the property cleared (ArcGIS's Update Item). */
const blank = (v: string) => v.trim() === '';

/**
 * Update Item and what goes with it: the item's properties, its data (text or a file), thumbnail, metadata and other
 * info files, and delete protection. New objects are stored first under keys of their own, then the row is changed in
 * one statement, then the objects it no longer names are removed: a reader sees the old version or the new, whole.
 */
@Injectable()
export class ItemUpdateService {
  private readonly logger = new Logger(ItemUpdateService.name);

  constructor(
    private readonly repo: ContentRepository,
    private readonly editors: ItemEditors,
    private readonly itemFiles: ItemFilesRepository,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async update(caller: Caller, ownerName: string, id: string, p: UpdateItemDto, file: UploadedFile | undefined) {
    const row = await this.editors.requireEditable(caller, ownerName, id);
    if (p.dataUrl !== undefined && !blank(p.dataUrl)) throw noFetch('dataUrl', "send the data as 'file' or 'text'.");
    if (p.thumbnailUrl !== undefined && !blank(p.thumbnailUrl) && !ownThumbnail(row, p.thumbnailUrl)) {
      throw noFetch('thumbnailUrl', "send the image as the 'thumbnail' file part.");
    }
    checkTags('tags', p.tags, this.config.limits);
    checkTags('typeKeywords', p.typeKeywords, this.config.limits);
    const patch = properties(p);
    const part = file ? file.fieldname : undefined;
    if (part !== undefined && !['file', 'thumbnail', 'metadata'].includes(part)) {
      throw Errors.badRequest('Unexpected file.', [
        `A file part named '${part.slice(0, 64)}'; update takes 'file', 'thumbnail' or 'metadata'.`,
      ]);
    }
    const replacesData = part === 'file' || (p.text !== undefined && (!blank(p.text) || p.clearEmptyFields === true));
    if (part === 'file' && p.text !== undefined) throw Errors.badRequest("Send either 'file' or 'text', not both.");
    if (replacesData && row.status !== 'completed') {
      throw Errors.badRequest('Unable to update item data.', [`The item is ${row.status}: ${row.status_message}`]);
    }
    if (p.text !== undefined && replacesData) {
      const empty = blank(p.text);
      Object.assign(patch, {
        data: empty ? null : p.text,
        filePath: null,
        name: null,
        contentType: empty ? null : 'application/json',
        size: empty ? 0 : Buffer.byteLength(p.text),
      });
    }
    let metadataKey: string | undefined;
    // A new file of the same name overwrites the object the row names: a failed update must not remove it then.
    let keep: string | null = null;
    if (file && part === 'file') {
      const fileName = p.filename?.trim() || file.originalname;
      keep = (await this.repo.findStorage(id))?.file_path ?? null;
      const key = await this.files.adopt(id, file.path, fileName);
      Object.assign(patch, { data: null, filePath: key, name: fileName, contentType: itemFileMime(row.type, fileName), size: file.size });
    } else if (file && part === 'thumbnail') {
      Object.assign(patch, await this.storeThumbnail(id, file));
    } else if (file && part === 'metadata') {
      metadataKey = await this.storeInfo(id, file, 'metadata.xml');
    }
    // The metadata first: refused (ITEM_MAX_INFO_FILES), the update changes nothing.
    if (metadataKey) await this.putInfo(id, METADATA, metadataKey, file!.size);
    await this.apply(id, patch, keep, eventBy(caller, 'item', 'update', [id]));
    return { success: true, id };
  }

  async deleteThumbnail(caller: Caller, ownerName: string, id: string) {
    await this.editors.requireEditable(caller, ownerName, id);
    await this.apply(id, { thumbnail: null, thumbnailKey: null }, null, eventBy(caller, 'item', 'update', [id]));
    return { success: true };
  }

  async setProtected(caller: Caller, ownerName: string, id: string, on: boolean) {
    await this.editors.requireEditable(caller, ownerName, id);
    await this.apply(id, { protected: on }, null, eventBy(caller, 'item', on ? 'protect' : 'unprotect', [id]));
    return { success: true };
  }

  /** Update Info: one file into the item's info folder, or a subfolder of it (`metadata` holds metadata.xml). */
  async updateInfo(caller: Caller, ownerName: string, id: string, p: UpdateInfoDto, file: UploadedFile | undefined) {
    const row = await this.editors.requireEditable(caller, ownerName, id);
    const folder = p.folderName && !blank(p.folderName) ? checkPath('folderName', p.folderName) : undefined;
    if (folder?.split('/')[0].toLowerCase() === 'thumbnail') {
      throw Errors.badRequest("'folderName' cannot be thumbnail.", ["Send a thumbnail as update's 'thumbnail' file part."]);
    }
    if (!file) throw Errors.badRequest("'file' is required.", ['Send the info file as a multipart file part named file.']);
    const name = checkPath('file', file.originalname);
    const target = folder ? `${folder}/${name}` : name;
    const key = await this.storeInfo(id, file, name);
    await this.putInfo(id, target, key, file.size);
    return { success: true, itemId: id, owner: row.owner, folder: folder ?? null };
  }

  /** `info/<path>`: the thumbnail, a stored info file, or iteminfo.xml written from the item when it was given none. */
  async info(caller: Caller | undefined, id: string, raw: string): Promise<ItemFileReply> {
    const row = await this.repo.findVisibleItem(id, caller);
    if (!row) throw Errors.itemNotFound(id);
    const p = raw.replace(/^\/+/, '');
    if (!storablePath(p)) throw fileNotFound('File', p);
    if (p.startsWith('thumbnail/')) {
      const key = await this.repo.findThumbnailKey(id, p);
      if (!key) throw fileNotFound('File', p);
      return { kind: 'stored', key, fileName: p, contentType: thumbnailType(p) };
    }
    const stored = await this.itemFiles.find(id, 'info', p);
    if (stored) return { kind: 'stored', key: stored.key, fileName: p, contentType: infoType(p) };
    if (p === ITEM_INFO) return { kind: 'text', text: itemInfoXml(infoSource(row)), fileName: p, contentType: 'application/xml' };
    throw fileNotFound('File', p);
  }

  /**
   * Writes the patch; removes what the row named before once it names something else; on failure, what was stored
   * for it (but `keep`, an object the row may still name).
   */
  private async apply(id: string, patch: ItemPatch, keep: string | null = null, event?: OutboxEvent): Promise<void> {
    const stored = [patch.thumbnailKey, patch.filePath === keep ? null : patch.filePath];
    let old: ReplacedKeys | null;
    try {
      old = await this.repo.update(id, patch, event);
    } catch (e) {
      await this.discard(stored);
      throw e;
    }
    if (!old) {
      await this.discard(stored);
      throw Errors.itemNotFound(id);
    }
    const gone: (string | null | undefined)[] = [];
    if (patch.filePath !== undefined && old.file_path !== patch.filePath) gone.push(old.file_path);
    if (patch.thumbnailKey !== undefined && old.thumbnail_key !== patch.thumbnailKey) gone.push(old.thumbnail_key);
    await this.discard(gone);
  }

  private async storeThumbnail(id: string, file: UploadedFile): Promise<ItemPatch> {
    const max = this.config.limits.thumbnailMaxBytes;
    if (file.size > max) throw Errors.badRequest('Invalid thumbnail.', [`The image is larger than ${max / 1024} KB (THUMBNAIL_MAX_KB).`]);
    const name = FileStore.safeName(file.originalname);
    await checkImage(file.path, name);
    const key = FileStore.itemFileKey(id, 'info', name);
    await this.files.adoptAs(key, file.path);
    return { thumbnail: `thumbnail/${name}`, thumbnailKey: key };
  }

  private async storeInfo(id: string, file: UploadedFile, name: string): Promise<string> {
    const max = this.config.limits.itemInfoMaxBytes;
    if (file.size > max) throw Errors.badRequest('Invalid info file.', [`The file is larger than ${max / 1024} KB (ITEM_INFO_MAX_KB).`]);
    infoType(name);
    const key = FileStore.itemFileKey(id, 'info', name);
    await this.files.adoptAs(key, file.path);
    return key;
  }

  private async putInfo(id: string, target: string, key: string, size: number): Promise<void> {
    const max = this.config.limits.itemMaxInfoFiles;
    let outcome: Awaited<ReturnType<ItemFilesRepository['put']>>;
    try {
      outcome = await this.itemFiles.put({ itemId: id, kind: 'info', path: target, key, size }, max);
    } catch (e) {
      await this.discard([key]);
      throw e;
    }
    if ('refused' in outcome) {
      await this.discard([key]);
      if (outcome.refused === 'gone') throw Errors.itemNotFound(id);
      throw Errors.badRequest('Unable to add info file.', [`The item holds the maximum of ${max} info files (ITEM_MAX_INFO_FILES).`]);
    }
    await this.discard([outcome.replaced]);
  }

  /** Removes objects no row names; a failure only leaves an object behind under the item, removed with it. */
  private async discard(keys: (string | null | undefined)[]): Promise<void> {
    for (const key of keys) {
      if (key) await this.files.remove(key).catch((e) => this.logger.warn(`could not remove ${key}: ${(e as Error).message}`));
    }
  }
}

/** The properties an update sets, or with clearEmptyFields clears when sent empty. */
function properties(p: UpdateItemDto): ItemPatch {
  const clear = p.clearEmptyFields === true;
  const patch: ItemPatch = {};
  if (p.title !== undefined) {
    if (!blank(p.title)) patch.title = p.title.trim();
    else if (clear) throw Errors.badRequest("'title' cannot be empty.");
  }
  for (const k of ['description', 'snippet'] as const) {
    const v = p[k];
    if (v !== undefined && (!blank(v) || clear)) patch[k] = blank(v) ? '' : v;
  }
  for (const k of ['accessInformation', 'licenseInfo', 'culture', 'url', 'spatialReference'] as const) {
    const v = p[k];
    if (v !== undefined && (!blank(v) || clear)) patch[k] = blank(v) ? null : v.trim();
  }
  for (const k of ['tags', 'typeKeywords'] as const) {
    const v = p[k];
    if (v !== undefined && (v.length > 0 || clear)) patch[k] = v;
  }
  if (p.properties !== undefined && (!blank(p.properties) || clear)) {
    patch.properties = jsonParam<Record<string, unknown>>('properties', p.properties, 'object', notAnObject) ?? null;
  }
  if (p.extent !== undefined && (!blank(p.extent) || clear)) patch.extent = parseExtent(p.extent);
  return patch;
}

/** Whether a thumbnailUrl names the thumbnail the item has (a client sending back the item it read): nothing to do. */
function ownThumbnail(row: ItemRow, url: string): boolean {
  if (!row.thumbnail) return false;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url, 'http://local').pathname);
  } catch {
    return false;
  }
  return pathname.endsWith(`/content/items/${row.id}/info/${row.thumbnail}`);
}

function infoSource(r: ItemRow) {
  return {
    id: r.id,
    title: r.title,
    type: r.type,
    name: r.name,
    snippet: r.snippet,
    description: r.description,
    tags: r.tags,
    typeKeywords: r.type_keywords,
    accessInformation: r.access_information,
    licenseInfo: r.license_info,
    culture: r.culture,
    url: r.url,
    extent: r.extent,
    spatialReference: r.spatial_reference,
    thumbnail: r.thumbnail,
  };
}

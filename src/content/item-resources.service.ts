import { Inject, Injectable, Logger } from '@nestjs/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { UploadedFile } from '../core/http/arcgis-request';
import { FileStore } from '../core/storage/file-store';
import { ContentRepository } from './content.repository';
import { nextStart } from '../core/http/paging';
import { ItemEditors, mayEdit } from './item-editors';
import { fileNotFound, ItemFileReply, textFile } from './item-file-reply';
import { checkPath, resourceType, storablePath } from './item-files';
import { ItemFilesRepository } from './item-files.repository';
import { RemoveResourcesDto, ResourceDto, ResourcesPageDto } from './item-update.dto';

/** A resource to store: its path, its size, and its bytes (the uploaded file, or the text parameter). */
interface Source {
  target: string;
  size: number;
  file?: UploadedFile;
  text?: string;
}

const exists = (target: string) =>
  Errors.badRequest('Resource already exists.', [`'${target}' is a resource of this item already; use updateResources to replace it.`]);

/**
 * Item resources: files an app keeps beside an item (images, JSON, styles), under paths of its choosing. Each is a row
 * of item_files naming its object in the file store; `access: private` ones are listed and served only to those who
 * may change the item.
 */
@Injectable()
export class ItemResourcesService {
  private readonly logger = new Logger(ItemResourcesService.name);

  constructor(
    private readonly repo: ContentRepository,
    private readonly editors: ItemEditors,
    private readonly itemFiles: ItemFilesRepository,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async add(caller: Caller, ownerName: string, id: string, p: ResourceDto, file: UploadedFile | undefined) {
    const row = await this.editors.requireEditable(caller, ownerName, id);
    const { target, size, ...bytes } = this.source(p, file);
    // Checked again with the insert; checked here too, so a duplicate costs no upload to the store.
    if (await this.itemFiles.find(id, 'resource', target)) throw exists(target);
    const key = await this.store(id, target, bytes);
    const max = this.config.limits.itemMaxResources;
    const outcome = await this.itemFiles
      .add({ itemId: id, kind: 'resource', path: target, key, size, access: p.access ?? 'inherit' }, max)
      .catch(async (e) => {
        await this.discard([key]);
        throw e;
      });
    if (outcome !== 'added') {
      await this.discard([key]);
      if (outcome === 'gone') throw Errors.itemNotFound(id);
      if (outcome === 'exists') throw exists(target);
      throw Errors.badRequest('Unable to add resource.', [`The item holds the maximum of ${max} resources (ITEM_MAX_RESOURCES).`]);
    }
    return { success: true, itemId: id, owner: row.owner, folder: null };
  }

  async update(caller: Caller, ownerName: string, id: string, p: ResourceDto, file: UploadedFile | undefined) {
    const row = await this.editors.requireEditable(caller, ownerName, id);
    const { target, size, ...bytes } = this.source(p, file);
    // Checked first, so a missing resource costs no upload to the store.
    if (!(await this.itemFiles.find(id, 'resource', target))) throw fileNotFound('Resource', target);
    const key = await this.store(id, target, bytes);
    let old: string | null;
    try {
      old = await this.itemFiles.replace({ itemId: id, kind: 'resource', path: target, key, size, access: p.access });
    } catch (e) {
      await this.discard([key]);
      throw e;
    }
    if (old === null) {
      await this.discard([key]);
      throw fileNotFound('Resource', target);
    }
    await this.discard([old]);
    return { success: true, itemId: id, owner: row.owner, folder: null };
  }

  async remove(caller: Caller, ownerName: string, id: string, p: RemoveResourcesDto) {
    await this.editors.requireEditable(caller, ownerName, id);
    if (p.deleteAll) {
      await this.discard(await this.itemFiles.remove(id, 'resource', null));
      return { success: true };
    }
    if (!p.resource || !p.resource.trim()) {
      throw Errors.badRequest("'resource' is required.", ['Name the resource, or pass deleteAll=true.']);
    }
    const target = checkPath('resource', p.resource);
    const keys = await this.itemFiles.remove(id, 'resource', [target]);
    if (!keys.length) throw fileNotFound('Resource', target);
    await this.discard(keys);
    return { success: true };
  }

  async list(caller: Caller | undefined, id: string, page: ResourcesPageDto) {
    const row = await this.repo.findVisibleItem(id, caller);
    if (!row) throw Errors.itemNotFound(id);
    const editor = mayEdit(caller, row);
    const { total, rows } = await this.itemFiles.list(id, 'resource', page, editor);
    return {
      total,
      start: page.start,
      num: rows.length,
      nextStart: nextStart(page, total),
      // ArcGIS shows a resource's access to the owner and administrators only.
      resources: rows.map((r) => ({
        resource: r.path,
        created: r.created.getTime(),
        size: Number(r.size),
        ...(editor ? { access: r.access } : {}),
      })),
    };
  }

  async read(caller: Caller | undefined, id: string, raw: string): Promise<ItemFileReply> {
    const row = await this.repo.findVisibleItem(id, caller);
    if (!row) throw Errors.itemNotFound(id);
    const p = raw.replace(/^\/+/, '');
    const file = storablePath(p) ? await this.itemFiles.find(id, 'resource', p) : null;
    if (!file || (file.access === 'private' && !mayEdit(caller, row))) throw fileNotFound('Resource', p);
    return { kind: 'stored', key: file.key, fileName: p, contentType: resourceType(p) };
  }

  /** The resource's path (prefix and name) and where its bytes come from, checked before anything is stored. */
  private source(p: ResourceDto, file: UploadedFile | undefined): Source {
    if (p.archive) {
      throw Errors.badRequest("'archive' is not supported.", ['Add the files of the archive one by one, or keep the zip as one resource.']);
    }
    if (file && p.text !== undefined) throw Errors.badRequest("Send either 'file' or 'text', not both.");
    if (!file && p.text === undefined) throw Errors.badRequest("'file' or 'text' is required.");
    const rawName = p.fileName && p.fileName.trim() ? p.fileName : file?.originalname;
    if (!rawName) throw Errors.badRequest("'fileName' is required.", ["A text resource needs 'fileName'."]);
    const name = checkPath('fileName', rawName);
    const prefix = p.resourcesPrefix && p.resourcesPrefix.trim() ? checkPath('resourcesPrefix', p.resourcesPrefix) : '';
    const target = checkPath('fileName', prefix ? `${prefix}/${name}` : name);
    resourceType(target);
    const size = file ? file.size : Buffer.byteLength(p.text!);
    const max = this.config.limits.itemResourceMaxBytes;
    if (size > max) {
      throw Errors.badRequest('Unable to add resource.', [`The file is larger than ${max / 1024 / 1024} MB (ITEM_RESOURCE_MAX_MB).`]);
    }
    return { target, size, file, text: file ? undefined : p.text };
  }

  /** Stores the bytes under a new key of the item; a text resource goes through a temp file, removed either way. */
  private async store(id: string, target: string, bytes: Pick<Source, 'file' | 'text'>): Promise<string> {
    const key = FileStore.itemFileKey(id, 'resources', path.basename(target));
    const local = bytes.file ? bytes.file.path : await textFile(this.config.dataDir, bytes.text ?? '');
    try {
      await this.files.adoptAs(key, local);
    } finally {
      if (!bytes.file) await fs.rm(local, { force: true });
    }
    return key;
  }

  private async discard(keys: (string | null)[]): Promise<void> {
    for (const key of keys) {
      if (key) await this.files.remove(key).catch((e) => this.logger.warn(`could not remove ${key}: ${(e as Error).message}`));
    }
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { Caller, can, isAdminFor, Privilege } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { eventBy } from '../core/events/outbox.repository';
import { nextStart } from '../core/http/paging';
import { jsonParam, OnInvalid } from '../core/http/param-values';
import { checkTags } from '../core/http/tag-list';
import { newId } from '../core/ids';
import { JobsRepository } from '../core/jobs/jobs.repository';
import { JobsService } from '../core/jobs/jobs.service';
import { WorkerRegistry } from '../core/jobs/worker-heartbeat';
import { IdentityService } from '../identity/identity.service';
import { AddItemDto, OwnerItemsDto, PageDto, SearchDto, StatusDto } from './content.dto';
import { ContentRepository } from './content.repository';
import { ItemEditors } from './item-editors';
import { ItemDeleteGuards } from './delete-guards';
import { ItemEntity } from './item.entity';
import { UploadService } from './upload.service';
import { Download } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';
import { itemFileMime } from '../core/storage/item-mime';
import { ItemListRepository } from './item-list.repository';
import { toItem } from './item-sql';
import { parseSearchQuery, SearchNode } from './search-query';

export interface UploadedFile {
  path: string;
  originalname: string;
  mimetype: string;
  size: number;
}

export type ItemData = ({ kind: 'file' } & Download) | { kind: 'json'; text: string } | { kind: 'empty' };

/** addItem answers every bad JSON parameter with one message, the reason in its details. */
const notAnObject: OnInvalid = (p) => Errors.badRequest(`'${p.name}' is not a valid JSON object.`, [p.reason ?? p.message]);

/** `extent` arrives as "xmin,ymin,xmax,ymax" (the client flattens bbox arrays) or as JSON [[x,y],[x,y]]. */
export function parseExtent(raw: string | undefined): number[][] {
  if (raw === undefined || raw.trim() === '') return [];
  const nums = raw
    .replace(/[[\]\s]/g, '')
    .split(',')
    .map(Number);
  if (nums.length !== 4 || nums.some((n) => !Number.isFinite(n))) {
    throw Errors.badRequest("'extent' is not valid.", ["Use 'xmin,ymin,xmax,ymax'."]);
  }
  return [
    [nums[0], nums[1]],
    [nums[2], nums[3]],
  ];
}

@Injectable()
export class ContentService {
  private readonly logger = new Logger(ContentService.name);

  constructor(
    private readonly repo: ContentRepository,
    private readonly lists: ItemListRepository,
    private readonly identity: IdentityService,
    private readonly files: FileStore,
    private readonly jobs: JobsRepository,
    private readonly jobsService: JobsService,
    private readonly workers: WorkerRegistry,
    private readonly uploads: UploadService,
    private readonly editors: ItemEditors,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deleteGuards: ItemDeleteGuards,
  ) {}

  /** Into the owner's root, or into `folderId` (a folder of the owner's, checked by the folders module). */
  async addItem(caller: Caller, ownerName: string, p: AddItemDto, file: UploadedFile | undefined, folderId: string | null = null) {
    const owner = await this.identity.actingFor(caller, ownerName, null, 'Items can only be added to your own content.');
    if (!can(caller, Privilege.CreateItem)) throw Errors.forbidden('Your role may not create items.');
    if (!p.title.trim() || !p.type.trim()) throw Errors.badRequest("'type' and 'title' property required.");
    checkTags('tags', p.tags, this.config.limits);
    checkTags('typeKeywords', p.typeKeywords, this.config.limits);
    if (file && p.text !== undefined) throw Errors.badRequest("Send either 'file' or 'text', not both.");
    const multipart = p.multipart === true;
    if (multipart && (file || p.text !== undefined)) {
      throw Errors.badRequest("A multipart add takes no 'file' or 'text'.", ['Send the data with addPart, then commit.']);
    }
    if (multipart && !p.filename?.trim()) throw Errors.badRequest("'filename' is required for a multipart upload.");
    const properties = jsonParam<Record<string, unknown>>('properties', p.properties, 'object', notAnObject) ?? null;
    const extent = parseExtent(p.extent);
    const id = newId();
    const fileName = multipart ? p.filename!.trim() : file ? p.filename || file.originalname : null;
    const filePath = file && fileName ? await this.files.adopt(id, file.path, fileName) : null;
    // Parts arrive later (addPart); until commit the item has no data and says so.
    const status = multipart ? 'partsUploading' : 'completed';
    const item: Partial<ItemEntity> = {
      id,
      ownerId: owner.id,
      orgId: owner.orgId,
      title: p.title.trim(),
      type: p.type.trim(),
      typeKeywords: p.typeKeywords ?? [],
      tags: p.tags ?? [],
      description: p.description ?? '',
      snippet: p.snippet ?? '',
      url: p.url ?? null,
      access: 'private',
      name: fileName,
      filePath,
      // Never the uploader's word: the type is the item type's (as served), so a stored script type cannot come back.
      contentType: fileName ? itemFileMime(p.type.trim(), fileName) : p.text !== undefined ? 'application/json' : null,
      size: file ? file.size : p.text !== undefined ? Buffer.byteLength(p.text) : 0,
      data: p.text ?? null,
      extent,
      spatialReference: p.spatialReference ?? null,
      properties,
      ownerFolder: folderId,
      status,
      statusMessage: status,
    };
    if (multipart) {
      await this.uploads.begin(id, fileName!, (m) => this.repo.insert(item, m, eventBy(caller, 'item', 'add', [id])));
      return { success: true, id, folder: folderId };
    }
    try {
      await this.repo.insert(item, undefined, eventBy(caller, 'item', 'add', [id], { title: item.title, type: item.type }));
    } catch (e) {
      if (filePath) await this.files.removeItem(id);
      throw e;
    }
    return { success: true, id, folder: folderId };
  }

  async item(caller: Caller | undefined, id: string) {
    return toItem(await this.requireVisible(caller, id));
  }

  async requireVisible(caller: Caller | undefined, id: string) {
    const row = await this.repo.findVisibleItem(id, caller);
    if (!row) throw Errors.itemNotFound(id);
    return row;
  }

  /** The item's data; `view` counts it in numViews (a resumed download's later ranges are not new views). */
  async data(caller: Caller | undefined, id: string, view = true): Promise<ItemData> {
    const row = await this.requireVisible(caller, id);
    if (row.status !== 'completed') {
      throw Errors.badRequest('Item data is not available.', [`The item is ${row.status}: ${row.status_message}`]);
    }
    if (view) await this.repo.countView(id);
    const storage = await this.repo.findStorage(id);
    if (storage?.file_path) {
      const object = await this.files.stat(storage.file_path);
      if (!object) throw Errors.badRequest('Item data is not available.', ['The file of this item is missing from storage.']);
      return {
        kind: 'file',
        key: storage.file_path,
        object,
        fileName: row.name ?? 'data',
        // From the item type's table, not the stored type: rows written before it kept the uploader's.
        contentType: itemFileMime(row.type, row.name ?? 'data'),
      };
    }
    if (storage?.data != null) return { kind: 'json', text: storage.data };
    return { kind: 'empty' };
  }

  async deleteItem(caller: Caller, ownerName: string, id: string) {
    const refusal = 'Only the owner or an administrator may delete this item.';
    const row = await this.editors.requireEditable(caller, ownerName, id, Privilege.AdminDeleteItems, refusal);
    if (row.protected) throw Errors.itemProtected(id);
    // Dependants that keep the item (views of this service) refuse before anything is touched.
    await this.deleteGuards.check(id);
    const event = eventBy(caller, 'item', 'delete', [id], { title: row.title, type: row.type });
    const { deleted, cancelled } = await this.repo
      .transaction(async (m) => {
        // The row is held from here to the commit: a protect sent meanwhile waits, and one that came first makes this
        // refuse before any job is cancelled.
        if (!(await this.repo.lockUnprotected(m, id))) return { deleted: null, cancelled: [] };
        const cancelled = await this.jobsService.cancelForItem(id, m);
        return { deleted: await this.repo.delete(id, m, event), cancelled };
      })
      .catch(async (e: unknown) => {
        // A dependant made since the check (a view of this service): its foreign key refuses, the guard says why.
        if ((e as { code?: string }).code === '23503') await this.deleteGuards.check(id);
        throw e;
      });
    // Protected meanwhile, or deleted by someone else.
    if (!deleted) throw (await this.repo.findItem(id))?.protected ? Errors.itemProtected(id) : Errors.itemNotFound(id);
    for (const job of cancelled) await this.jobsService.removeOutput(job);
    // A failed removal leaves objects without an item, which the storage sweep removes later.
    if (deleted.has_files)
      await this.files.removeItem(id).catch((e) => this.logger.warn(`could not remove the files of ${id}: ${(e as Error).message}`));
    return { success: true, itemId: id };
  }

  /** The owner's root folder, or `folderId` (the folders module checks it and adds the folder's own record). */
  async userContent(caller: Caller, ownerName: string, page: PageDto, folderId: string | null = null) {
    const refusal = "Only the owner or an administrator may list a user's content.";
    const owner = await this.identity.actingFor(caller, ownerName, Privilege.AdminViewItems, refusal);
    const { total, rows } = await this.lists.listOwned(owner.id, page, folderId);
    return {
      username: owner.username,
      total,
      start: page.start,
      num: page.num,
      nextStart: nextStart(page, total),
      currentFolder: null,
      items: rows.map(toItem),
      folders: [],
    };
  }

  /**
   * My content: the owner's items (every folder) matching `q` (search's syntax) and the filters, ANDed, for the owner
   * and administrators, as userContent allows; with the types the owner has, for the page's filter.
   */
  async ownerItems(caller: Caller, ownerName: string, p: OwnerItemsDto) {
    const refusal = "Only the owner or an administrator may list a user's content.";
    const owner = await this.identity.actingFor(caller, ownerName, Privilege.AdminViewItems, refusal);
    const terms: SearchNode[] = [];
    if (p.q?.trim()) terms.push(parseSearchQuery(p.q));
    if (p.type) terms.push({ kind: 'term', field: 'type', value: p.type.replace(/[*?]/g, '') });
    if (p.access) terms.push({ kind: 'term', field: 'access', value: p.access });
    if (p.group) terms.push({ kind: 'term', field: 'group', value: p.group });
    const node = terms.reduce<SearchNode | undefined>((a, t) => (a ? { kind: 'and', left: a, right: t } : t), undefined);
    const sort = { field: p.sortField ?? 'modified', order: p.sortOrder ?? (p.sortField ? 'asc' : 'desc') } as const;
    const [{ total, rows }, types] = await Promise.all([this.lists.searchOwned(owner.id, node, sort, p), this.lists.ownerTypes(owner.id)]);
    return { username: owner.username, total, start: p.start, num: p.num, nextStart: nextStart(p, total), items: rows.map(toItem), types };
  }

  /** `groupId` (group content search) is ANDed to the parsed query, so nothing in `q` can widen it. */
  async search(caller: Caller | undefined, p: SearchDto, groupId?: string) {
    const groupTerm: SearchNode | undefined = groupId ? { kind: 'term', field: 'group', value: groupId } : undefined;
    const hasQ = p.q !== undefined && p.q.trim() !== '';
    if (!hasQ && !groupTerm) throw Errors.badRequest("'q' is required.", ['Pass a query such as q=owner: jsmith AND type: CSV.']);
    const parsed = hasQ ? parseSearchQuery(p.q!) : undefined;
    const node: SearchNode = groupTerm && parsed ? { kind: 'and', left: groupTerm, right: parsed } : (parsed ?? groupTerm)!;
    const { total, rows } = await this.lists.search(node, caller, { field: p.sortField ?? 'title', order: p.sortOrder ?? 'asc' }, p);
    return { query: p.q ?? '', total, start: p.start, num: p.num, nextStart: nextStart(p, total), results: rows.map(toItem) };
  }

  async groupContent(caller: Caller | undefined, groupId: string, page: PageDto) {
    const { total, rows } = await this.lists.listGroupItems(groupId, caller, page);
    return { total, start: page.start, num: page.num, nextStart: nextStart(page, total), items: rows.map(toItem) };
  }

  /** `community/users/<u>/tags`: the tags of the user's items and their counts, for the user and administrators. */
  async userTags(caller: Caller, ownerName: string) {
    const refusal = "Only the user or an administrator may list a user's tags.";
    const owner = await this.identity.actingFor(caller, ownerName, Privilege.AdminViewItems, refusal);
    return { tags: await this.lists.ownerTags(owner.id) };
  }

  /** The item's own status; job statuses arrive with the export and publish pipelines. */
  async status(caller: Caller, ownerName: string, id: string, p: StatusDto) {
    // The path's owner is compared with the item's, not looked up: an unknown name answers as another user's does.
    const row = await this.repo.findItem(id);
    const owned = row && row.owner.toLowerCase() === ownerName.toLowerCase();
    if (!owned || (row.owner_id !== caller.userId && !isAdminFor(caller, row.org_id, Privilege.AdminViewItems)))
      throw Errors.itemNotFound(id);
    if (!p.jobType && !p.jobId) {
      // A commit of parts runs in the API (UploadService), not on a worker.
      const waiting = row.status === 'processing' && !(await this.uploads.committing(id)) && (await this.noWorkerAlive());
      return { status: row.status, statusMessage: waiting ? NO_WORKER : row.status_message, itemId: id };
    }
    if (!p.jobType || !p.jobId) throw Errors.badRequest("'jobId' and 'jobType' go together.");
    const job = await this.jobs.findForItem(p.jobId, p.jobType, id);
    if (!job) throw Errors.badRequest('Job does not exist.', [`No ${p.jobType} job '${p.jobId.slice(0, 64)}' for item '${id}'.`]);
    // ArcGIS reports processing until done; 'failed' makes the client reject with statusMessage as the error.
    const status =
      job.status === 'completed' ? 'completed' : job.status === 'failed' || job.status === 'cancelled' ? 'failed' : 'processing';
    if (status === 'processing' && (await this.noWorkerAlive())) return { status, statusMessage: NO_WORKER, itemId: id };
    return { status, statusMessage: job.status_message || status, itemId: id };
  }

  /**
   * With no worker alive, an unfinished job (queued, or processing on a worker that died) goes nowhere until one
   * starts; saying so beats 'processing' forever. Unknown (Redis not answering) is not "none": the row's own message.
   */
  private async noWorkerAlive(): Promise<boolean> {
    return (await this.workers.alive().catch(() => 1)) === 0;
  }
}

export const NO_WORKER = 'Waiting for a worker: none is running.';

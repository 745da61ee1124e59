import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { SqlParams } from '../core/database/sql-params';
import { Errors } from '../core/errors/arcgis-error';
import { UploadedFile } from '../core/http/arcgis-request';
import { boolParam, intParam } from '../core/http/param-values';
import { FileStore } from '../core/storage/file-store';
import { attachmentMime } from '../core/storage/item-mime';
import { LayerRow } from '../layers/types';
import { compileWhere } from '../where/compile';
import { AttachmentTarget } from './attachment-layers';
import { attachmentName, formatGuid, readId, readIdList, readKeywords, readSizeRange, readTextList } from './attachment-params';
import { AttachmentFile, AttachmentRow, AttachmentsRepository } from './attachments.repository';
import { QueryAttachmentsDto } from './attachments.dto';

/** What ArcGIS answers for an attachment operation on a layer without attachments. */
export const notSupported = (l: LayerRow) =>
  Errors.badRequest('Requested operation is not supported by this service.', [
    `Layer '${l.name}' has no attachments (hasAttachments is false).`,
  ]);
const unable = (detail: string) => Errors.badRequest('Unable to complete operation.', [detail]);
const MAX_IDS = 1000;
const MAX_PAGE = 2000;

/** An attachment's entry in `attachments`, queryAttachments and the edit results. */
export function attachmentInfo(r: AttachmentRow) {
  return {
    id: r.id,
    globalId: formatGuid(r.global_id),
    name: r.name,
    contentType: r.content_type,
    size: r.size,
    keywords: r.keywords,
    exifInfo: null,
  };
}

/**
 * Attachments of hosted features: the limits (ATTACHMENT_MAX_MB, ATTACHMENTS_PER_FEATURE/_FEATURE_MAX_MB,
 * ATTACHMENTS_PER_LAYER/_LAYER_MAX_GB), the content type (ours, by extension), and the files' life: stored before
 * their row is written, removed after the row that named them is gone. Callers pass a layer already resolved under
 * the FeatureServer's own rules (AttachmentLayers).
 */
@Injectable()
export class AttachmentsService {
  private readonly logger = new Logger(AttachmentsService.name);

  constructor(
    private readonly repo: AttachmentsRepository,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Refuses operations on a layer whose definition did not enable attachments. */
  enabled(t: AttachmentTarget): AttachmentTarget {
    if (!t.layer.has_attachments) throw notSupported(t.layer);
    return t;
  }

  async list(t: AttachmentTarget, oidRaw: string) {
    const oid = readId('object id', oidRaw);
    return { attachmentInfos: (await this.repo.listForFeature(this.enabled(t).layer, oid)).map(attachmentInfo) };
  }

  /** The stored file of one attachment, for sendItemFile; null when the feature has no such attachment. */
  async file(t: AttachmentTarget, oidRaw: string, idRaw: string) {
    const oid = readId('object id', oidRaw);
    const row = await this.repo.find(this.enabled(t).layer, oid, readId('attachment id', idRaw));
    if (!row) throw this.missing(oidRaw, idRaw);
    return { kind: 'stored' as const, key: row.storage_key, fileName: row.name, contentType: row.content_type };
  }

  /** The same answer for an attachment that does not exist and one whose object went missing from storage. */
  missing(oid: string, id: string) {
    return Errors.badRequest('Attachment does not exist or is inaccessible.', [
      `Object ${oid.slice(0, 16)} has no attachment '${id.slice(0, 16)}'.`,
    ]);
  }

  async add(t: AttachmentTarget, oidRaw: string, file: UploadedFile | undefined, keywordsRaw: unknown, uploadId?: string) {
    const { service, layer } = this.enabled(t);
    const oid = readId('object id', oidRaw);
    const upload = this.upload(file, uploadId);
    const keywords = readKeywords(keywordsRaw);
    if (!(await this.repo.featureExists(service.schema_name, layer, oid))) throw unable(`Object ${oid} does not exist.`);
    this.checkRoom(await this.repo.usage(layer, oid), upload.size);
    const stored = await this.store(layer.service_item_id, upload.name, upload.path, upload.size, keywords);
    try {
      const row = await this.repo.transaction(async (m) => {
        this.checkRoom(await this.repo.usage(layer, oid, m), stored.size);
        // The feature may have been deleted while the file was stored.
        if (!(await this.repo.featureExists(service.schema_name, layer, oid, m))) throw unable(`Object ${oid} does not exist.`);
        return this.repo.insert(m, layer, oid, stored);
      });
      return { addAttachmentResult: { objectId: row.id, globalId: formatGuid(row.global_id), success: true } };
    } catch (e) {
      await this.removeFiles([stored.key]);
      throw e;
    }
  }

  async update(
    t: AttachmentTarget,
    oidRaw: string,
    idRaw: string | undefined,
    file: UploadedFile | undefined,
    keywordsRaw: unknown,
    uploadId?: string,
  ) {
    const { layer } = this.enabled(t);
    const oid = readId('object id', oidRaw);
    if (!idRaw?.trim()) throw Errors.badRequest("'attachmentId' is required.");
    const id = readId('attachment id', idRaw);
    const upload = this.upload(file, uploadId);
    const keywords = readKeywords(keywordsRaw);
    const current = await this.repo.find(layer, oid, id);
    if (!current) throw unable(`Object ${oid} has no attachment ${id}.`);
    this.checkRoom(await this.repo.usage(layer, oid), upload.size - current.size, true);
    const stored = await this.store(layer.service_item_id, upload.name, upload.path, upload.size, keywords);
    let old: string | undefined;
    try {
      const r = await this.repo.transaction(async (m) => {
        const before = await this.repo.usage(layer, oid, m);
        const row = await this.repo.replace(m, layer, { oid, id }, stored);
        if (!row) throw unable(`Object ${oid} has no attachment ${id}.`);
        this.checkRoom(before, stored.size - current.size, true);
        return row;
      });
      old = r.old_key;
      return { updateAttachmentResult: { objectId: r.id, globalId: formatGuid(r.global_id), success: true } };
    } catch (e) {
      await this.removeFiles([stored.key]);
      throw e;
    } finally {
      if (old) await this.removeFiles([old]);
    }
  }

  async deleteMany(t: AttachmentTarget, oidRaw: string, idsRaw: string | undefined) {
    const { layer } = this.enabled(t);
    const oid = readId('object id', oidRaw);
    const ids = readIdList('attachmentIds', idsRaw, MAX_IDS);
    if (!ids?.length) throw Errors.badRequest("'attachmentIds' is required.");
    const removed = await this.repo.transaction((m) => this.repo.delete(m, layer, { oid, ids }));
    await this.removeFiles(removed.map((r) => r.storage_key));
    const byId = new Map(removed.map((r) => [r.id, r]));
    return {
      deleteAttachmentResults: ids.map((id) => {
        const r = byId.get(id);
        return r
          ? { objectId: id, globalId: formatGuid(r.global_id), success: true }
          : {
              objectId: id,
              globalId: null,
              success: false,
              error: { code: 1019, description: 'Delete for the object was not attempted. Object may not exist.' },
            };
      }),
    };
  }

  /** queryAttachments: attachment groups per feature, in object id order. */
  async query(t: AttachmentTarget, p: QueryAttachmentsDto, url: (oid: number, id: number) => string) {
    const { service, layer } = this.enabled(t);
    const objectIds = readIdList('objectIds', p.objectIds, 100_000);
    const globalIds = readTextList('globalIds', p.globalIds, 100_000)?.map((g) => g.replace(/[{}]/g, '').toLowerCase());
    if (globalIds?.some((g) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(g)))
      throw Errors.badRequest("'globalIds' must list GUIDs.");
    const definition = p.definitionExpression?.trim();
    if (!objectIds && !globalIds && !definition)
      throw Errors.badRequest('Unable to perform query.', ["Give 'objectIds', 'globalIds' or 'definitionExpression'."]);
    if (boolParam('returnCountOnly', p.returnCountOnly, false))
      throw Errors.badRequest('Unable to perform query.', [
        "'returnCountOnly' is not supported (supportsQueryAttachmentsCountOnly is false).",
      ]);
    if (p.attachmentsDefinitionExpression?.trim())
      throw Errors.badRequest('Unable to perform query.', [
        "'attachmentsDefinitionExpression' is not supported; use 'keywords', 'size' and 'attachmentTypes'.",
      ]);
    let where: { sql: string; params: SqlParams } | undefined;
    if (definition) {
      const params = new SqlParams();
      where = { sql: compileWhere(definition, layer.fields, params, { alias: 't' }), params };
    }
    const size = readSizeRange(p.size);
    const offset = intParam('resultOffset', p.resultOffset, { min: 0, max: 1e9 }) ?? 0;
    const limit = intParam('resultRecordCount', p.resultRecordCount, { min: 1, max: MAX_PAGE }) ?? MAX_PAGE;
    const returnUrl = boolParam('returnUrl', p.returnUrl, false);
    const rows = await this.repo.query(service.schema_name, layer, {
      objectIds,
      globalIds,
      where,
      contentTypes: readTextList('attachmentTypes', p.attachmentTypes, 100)?.map((c) => c.toLowerCase()),
      keywords: readTextList('keywords', p.keywords, 100),
      minSize: size.min,
      maxSize: size.max,
      offset,
      limit: limit + 1,
    });
    const exceeded = rows.length > limit;
    const groups = new Map<number, { parentObjectId: number; parentGlobalId: string | null; attachmentInfos: unknown[] }>();
    for (const r of rows.slice(0, limit)) {
      let g = groups.get(r.object_id);
      if (!g) {
        g = {
          parentObjectId: r.object_id,
          parentGlobalId: r.parent_global_id ? formatGuid(r.parent_global_id) : null,
          attachmentInfos: [],
        };
        groups.set(r.object_id, g);
      }
      g.attachmentInfos.push({ ...attachmentInfo(r), ...(returnUrl ? { url: url(r.object_id, r.id) } : {}) });
    }
    return { attachmentGroups: [...groups.values()], ...(exceeded ? { exceededTransferLimit: true } : {}) };
  }

  /** Inside an edit that deletes features: drops their attachments' rows; remove the returned keys once it commits. */
  dropForFeatures(m: EntityManager, layer: LayerRow, oids: number[]): Promise<string[]> {
    return layer.has_attachments ? this.repo.deleteForFeatures(m, layer, oids) : Promise.resolve([]);
  }

  /** The keys of every attachment of these layers, to remove once the layers are deleted. */
  keysOfLayers(serviceItemId: string, layerIds: number[]): Promise<string[]> {
    return this.repo.keysOfLayers(serviceItemId, layerIds);
  }

  /** Removes stored objects no row names any more; a failure leaves them to the storage sweep with their service. */
  async removeFiles(keys: string[]): Promise<void> {
    for (const key of keys)
      await this.files.remove(key).catch((e) => this.logger.warn(`could not remove attachment ${key}: ${(e as Error).message}`));
  }

  /** The uploaded file part `attachment`, within ATTACHMENT_MAX_MB (body.ts cuts larger ones while they arrive). */
  private upload(file: UploadedFile | undefined, uploadId?: string) {
    if (!file && uploadId?.trim())
      throw Errors.badRequest('Unable to complete operation.', [
        'Attachments by uploadId are not supported here (supportsAttachmentsByUploadId is false); send the file.',
      ]);
    if (!file) throw Errors.badRequest("'attachment' is required.", ['Send the file as the multipart part named attachment.']);
    if (file.fieldname !== 'attachment')
      throw Errors.badRequest("'attachment' is required.", [
        `The file part is named '${file.fieldname.slice(0, 64)}'; name it attachment.`,
      ]);
    return { name: attachmentName(file.originalname), path: file.path, size: file.size };
  }

  /** Stores a finished local file as a new attachment version under the service's item; its type is ours. */
  async store(serviceItemId: string, name: string, localPath: string, size: number, keywords: string): Promise<AttachmentFile> {
    if (size > this.config.attachments.maxBytes) throw unable(`The attachment is larger than ATTACHMENT_MAX_MB.`);
    const key = await this.files.adoptAs(FileStore.itemFileKey(serviceItemId, 'attachments', name), localPath);
    return { name, contentType: attachmentMime(name), size, keywords, key };
  }

  /** Whether `added` more bytes (and, unless `replacing`, one more file) fit the feature's and the layer's limits. */
  checkRoom(u: { featureCount: number; featureBytes: number; layerCount: number; layerBytes: number }, added: number, replacing = false) {
    const a = this.config.attachments;
    const more = replacing ? 0 : 1;
    if (u.featureCount + more > a.perFeature)
      throw unable(`The feature holds the maximum of ${a.perFeature} attachments (ATTACHMENTS_PER_FEATURE).`);
    if (u.layerCount + more > a.perLayer) throw unable(`The layer holds the maximum of ${a.perLayer} attachments (ATTACHMENTS_PER_LAYER).`);
    if (u.featureBytes + added > a.featureMaxBytes) throw unable("The feature's attachments would exceed ATTACHMENTS_FEATURE_MAX_MB.");
    if (u.layerBytes + added > a.layerMaxBytes) throw unable("The layer's attachments would exceed ATTACHMENTS_LAYER_MAX_GB.");
  }
}

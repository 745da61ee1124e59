import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisError, Errors } from '../core/errors/arcgis-error';
import { jsonParam } from '../core/http/param-values';
import { AttachmentTarget } from './attachment-layers';
import { attachmentName, formatGuid, readGuid, readKeywords } from './attachment-params';
import { AttachmentFile, AttachmentsRepository } from './attachments.repository';
import { AttachmentsService, notSupported } from './attachments.service';

/** One attachment edit's outcome, as applyEdits reports it under `attachments`. */
export interface AttachmentEditResult {
  objectId: number | null;
  globalId: string;
  success: boolean;
  error?: { code: number; description: string };
}

/** The attachment edits of one applyEdits request, their files already stored. */
export interface AttachmentEditPlan {
  adds: { globalId: string; parentGlobalId: string; file: AttachmentFile }[];
  updates: { globalId: string; file: AttachmentFile }[];
  deletes: string[];
  /** Keys stored for this request: removed again if the edit does not commit. */
  stored: string[];
}

const MAX_ATTACHMENT_EDITS = 1000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const bad = (detail: string) => Errors.badRequest('Unable to complete operation.', [detail]);
const failed = (globalId: string, description: string, code = 1000): AttachmentEditResult => ({
  objectId: null,
  globalId: formatGuid(globalId),
  success: false,
  error: { code, description },
});

/**
 * applyEdits' `attachments` ({adds, updates, deletes}, by global id, with `useGlobalIds=true` as ArcGIS requires).
 * A file comes as base64 `data`: the request body already holds it, so each is decoded to a temp file and stored
 * before the edit's transaction; upload ids (the service's uploads/ resource) are not offered
 * (supportsAttachmentsByUploadId is false).
 */
@Injectable()
export class AttachmentEdits {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly repo: AttachmentsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Checks the parameter and stores its files; undefined when the request has no attachment edits. */
  async prepare(t: AttachmentTarget, raw: string | undefined, useGlobalIds: boolean): Promise<AttachmentEditPlan | undefined> {
    const spec = jsonParam<{ adds?: unknown; updates?: unknown; deletes?: unknown }>('attachments', raw);
    if (!spec) return undefined;
    if (!t.layer.has_attachments) throw notSupported(t.layer);
    if (!useGlobalIds) throw bad("'attachments' needs useGlobalIds=true: attachments and their features are named by global id.");
    if (!t.layer.fields.some((f) => f.type === 'esriFieldTypeGlobalID'))
      throw bad(`Layer '${t.layer.name}' has no GlobalID field, which attachment edits name features by.`);
    const list = (k: 'adds' | 'updates' | 'deletes') => {
      const v = spec[k];
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v)) throw bad(`'attachments.${k}' must be an array.`);
      return v as unknown[];
    };
    const [adds, updates, deletes] = [list('adds'), list('updates'), list('deletes')];
    if (adds.length + updates.length + deletes.length > MAX_ATTACHMENT_EDITS)
      throw bad(`At most ${MAX_ATTACHMENT_EDITS} attachment edits in one request.`);
    const plan: AttachmentEditPlan = { adds: [], updates: [], deletes: deletes.map((g) => readGuid('attachments.deletes', g)), stored: [] };
    try {
      for (const a of adds) {
        const o = this.entry(a, 'adds');
        const ids = { globalId: readGuid('globalId', o.globalId), parentGlobalId: readGuid('parentGlobalId', o.parentGlobalId) };
        const file = await this.storeData(t, o);
        plan.stored.push(file.key);
        plan.adds.push({ ...ids, file });
      }
      for (const u of updates) {
        const o = this.entry(u, 'updates');
        const globalId = readGuid('globalId', o.globalId);
        const file = await this.storeData(t, o);
        plan.stored.push(file.key);
        plan.updates.push({ globalId, file });
      }
    } catch (e) {
      await this.attachments.removeFiles(plan.stored);
      throw e;
    }
    return plan;
  }

  /**
   * Inside the edit's transaction, after the feature edits: writes the plan. Returns the results and the keys no row
   * names once it commits (versions replaced or deleted, files of edits that failed), to remove then.
   */
  async apply(m: EntityManager, t: AttachmentTarget, plan: AttachmentEditPlan) {
    const { service, layer } = t;
    const parents = await this.repo.oidsByGlobalIds(service.schema_name, layer, [...new Set(plan.adds.map((a) => a.parentGlobalId))], m);
    const addResults: AttachmentEditResult[] = [];
    const replaced: string[] = [];
    for (const a of plan.adds) {
      const oid = parents.get(a.parentGlobalId);
      if (oid === undefined) {
        addResults.push(failed(a.globalId, `No feature has global id ${formatGuid(a.parentGlobalId)}.`, 1019));
        replaced.push(a.file.key);
        continue;
      }
      try {
        this.attachments.checkRoom(await this.repo.usage(layer, oid, m), a.file.size);
      } catch (e) {
        if (!(e instanceof ArcgisError)) throw e;
        addResults.push(failed(a.globalId, e.details[0] ?? e.message));
        replaced.push(a.file.key);
        continue;
      }
      // A global id already in use fails this add alone; the savepoint keeps the transaction usable.
      let row: { id: number; global_id: string } | null = null;
      await m.query('SAVEPOINT attachment_add');
      try {
        row = await this.repo.insert(m, layer, oid, a.file, a.globalId);
        await m.query('RELEASE SAVEPOINT attachment_add');
      } catch (e) {
        if ((e as { code?: string }).code !== '23505') throw e;
        await m.query('ROLLBACK TO SAVEPOINT attachment_add');
      }
      if (!row) replaced.push(a.file.key);
      addResults.push(
        row ? { objectId: row.id, globalId: formatGuid(row.global_id), success: true } : failed(a.globalId, 'The global id is in use.'),
      );
    }
    const updateResults: AttachmentEditResult[] = [];
    for (const u of plan.updates) {
      const row = await this.repo.replace(m, layer, { globalId: u.globalId }, u.file);
      replaced.push(row ? row.old_key : u.file.key);
      updateResults.push(
        row
          ? { objectId: row.id, globalId: formatGuid(row.global_id), success: true }
          : failed(u.globalId, 'Attachment does not exist.', 1019),
      );
    }
    const deleted = plan.deletes.length ? await this.repo.delete(m, layer, { globalIds: plan.deletes }) : [];
    replaced.push(...deleted.map((d) => d.storage_key));
    const byGlobal = new Map(deleted.map((d) => [d.global_id, d]));
    const deleteResults = plan.deletes.map((g) => {
      const d = byGlobal.get(g);
      return d ? { objectId: d.id, globalId: formatGuid(g), success: true } : failed(g, 'Attachment does not exist.', 1019);
    });
    return { results: { addResults, updateResults, deleteResults }, replaced };
  }

  private entry(v: unknown, list: string): Record<string, unknown> {
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(`Each entry of 'attachments.${list}' must be a JSON object.`);
    const o = v as Record<string, unknown>;
    if (o.uploadId !== undefined && o.data === undefined)
      throw bad('Attachments by uploadId are not supported here (supportsAttachmentsByUploadId is false); send base64 data.');
    return o;
  }

  private async storeData(t: AttachmentTarget, o: Record<string, unknown>): Promise<AttachmentFile> {
    const name = attachmentName(o.name);
    const keywords = readKeywords(o.keywords);
    if (typeof o.data !== 'string') throw bad(`Attachment '${name.slice(0, 64)}' needs base64 'data'.`);
    const text = o.data.replace(/\s/g, '');
    if (text.length % 4 !== 0 || !BASE64.test(text)) throw bad(`Attachment '${name.slice(0, 64)}': 'data' is not base64.`);
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length > this.config.attachments.maxBytes)
      throw new ArcgisError(413, 'Request entity too large.', [`Attachment '${name.slice(0, 64)}' is larger than ATTACHMENT_MAX_MB.`]);
    const file = path.resolve(this.config.dataDir, 'tmp', `upload-${randomUUID()}`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes, { flag: 'wx' });
    try {
      return await this.attachments.store(t.layer.service_item_id, name, file, bytes.length, keywords);
    } finally {
      await fs.rm(file, { force: true }).catch(() => undefined);
    }
  }
}

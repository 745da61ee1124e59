import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AttachmentEditPlan, AttachmentEdits, AttachmentsService } from '../attachments';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { Errors } from '../core/errors/arcgis-error';
import { AttributeError, convertAttributes, toColumnText } from './attributes';
import { GeometryError } from '../layers/esri-geometry';
import { FeatureDataRepository, FeatureWrite } from './feature-data.repository';
import { FeatureGate } from './feature-gate';
import { EditsDto } from './feature-server.dto';
import { FeatureServerService } from './feature-server.service';
import { LayersRepository } from '../layers/layers.repository';
import { LayerRow, ServiceRow } from '../layers/types';
import { GeometryPool } from './geometry/geometry-pool.service';
import { ParsedFeature } from './geometry/types';
import { boolParam, globalIdList, idList, srParam } from './query-params';
import { compileWhere } from '../where/compile';

export interface EditResult {
  objectId: number | null;
  globalId: string | null;
  success: boolean;
  error?: { code: number; description: string };
}

type Prepared = { ok: true; write: FeatureWrite } | { ok: false; oid: number | null; description: string };

const MAX_EDITS = 10_000;
/** ArcGIS's codes: 1000 for a value or geometry it could not apply, 1019 for an object that does not exist. */
const fail = (oid: number | null, description: string, code = 1000, globalId: string | null = null): EditResult => ({
  objectId: oid,
  globalId: globalId && `{${globalId.toUpperCase()}}`,
  success: false,
  error: { code, description },
});
const missingDelete = 'Delete for the object was not attempted. Object may not exist.';
const ok = (oid: number, globalId: string | null = null): EditResult => ({
  objectId: oid,
  globalId: globalId && `{${globalId.toUpperCase()}}`,
  success: true,
});

@Injectable()
export class EditsService {
  constructor(
    private readonly features: FeatureServerService,
    private readonly repo: LayersRepository,
    private readonly data: FeatureDataRepository,
    private readonly geometry: GeometryPool,
    private readonly gate: FeatureGate,
    private readonly attachments: AttachmentsService,
    private readonly attachmentEdits: AttachmentEdits,
  ) {}

  /** The service and layer an edit (or an attachment's) acts on: the caller may edit, and the service allows it. */
  async target(caller: Caller | undefined, name: string, layerId: string, capability: string) {
    const service = await this.features.writable(caller, name);
    const caps = service.capabilities.split(',');
    if (!caps.includes(capability) && !caps.includes('Editing'))
      throw Errors.badRequest(`This service does not allow ${capability.toLowerCase()} edits.`);
    return { service, layer: await this.features.resolveLayer(service, layerId) };
  }

  async addFeatures(caller: Caller | undefined, name: string, layerId: string, p: EditsDto) {
    const { service, layer } = await this.target(caller, name, layerId, 'Create');
    const [adds] = await this.parse(layer, { features: p.features });
    const results = await this.gate.run(caller, () => this.apply(service, layer, p, { adds }));
    return { addResults: results.adds };
  }

  async updateFeatures(caller: Caller | undefined, name: string, layerId: string, p: EditsDto) {
    const { service, layer } = await this.target(caller, name, layerId, 'Update');
    const [updates] = await this.parse(layer, { features: p.features });
    const results = await this.gate.run(caller, () => this.apply(service, layer, p, { updates }));
    return { updateResults: results.updates };
  }

  async deleteFeatures(caller: Caller | undefined, name: string, layerId: string, p: EditsDto) {
    const { service, layer } = await this.target(caller, name, layerId, 'Delete');
    const ids = idList('objectIds', p.objectIds, MAX_EDITS);
    if (!ids && !p.where?.trim()) throw Errors.badRequest("'objectIds' or 'where' is required.");
    if (ids) return { deleteResults: (await this.gate.run(caller, () => this.apply(service, layer, p, { deletes: ids }))).deletes };
    const sqlParams = new SqlParams();
    const where = compileWhere(p.where!.trim(), layer.fields, sqlParams);
    const held = await this.features.attachmentsLayer(service, layer);
    let files: string[] = [];
    const deleted = await this.gate.run(caller, () =>
      this.data.transaction(async (m) => {
        const ids = await this.data.deleteWhere(m, service.schema_name, layer, where, sqlParams);
        files = await this.attachments.dropForFeatures(m, held, ids);
        return ids;
      }),
    );
    await this.attachments.removeFiles(files);
    return { deleteResults: deleted.map((id) => ok(id)) };
  }

  async applyEdits(caller: Caller | undefined, name: string, layerId: string, p: EditsDto) {
    const { service, layer } = await this.target(caller, name, layerId, 'Editing');
    const useGlobalIds = boolParam('useGlobalIds', p.useGlobalIds, false);
    // With useGlobalIds, `deletes` names features by GlobalID; those no feature has fail as a missing object id does.
    const globalDeletes = useGlobalIds ? globalIdList('deletes', p.deletes, MAX_EDITS) : undefined;
    const found = globalDeletes ? await this.data.oidsByGlobalIds(service.schema_name, layer, globalDeletes) : undefined;
    const unknown = (globalDeletes ?? []).filter((g) => !found!.has(g)).map((g) => fail(null, missingDelete, 1019, g));
    if (unknown.length && boolParam('rollbackOnFailure', p.rollbackOnFailure, true))
      throw Errors.badRequest(
        'Unable to complete operation.',
        unknown.slice(0, 20).map((u) => `Object ${u.globalId}: ${missingDelete}`),
      );
    const deletes = found ? [...found.values()] : (idList('deletes', p.deletes, MAX_EDITS) ?? []);
    const [adds, parsedUpdates] = await this.parse(layer, { adds: p.adds, updates: p.updates });
    const updates = useGlobalIds ? await this.byGlobalId(service, layer, parsedUpdates) : parsedUpdates;
    const held = await this.features.attachmentsLayer(service, layer);
    const attachments = await this.attachmentEdits.prepare({ service, layer: held }, p.attachments, useGlobalIds);
    const r = await this.gate
      .run(caller, () => this.apply(service, layer, p, { adds, updates, deletes, attachments }))
      .catch(async (e: unknown) => {
        await this.attachments.removeFiles(attachments?.stored ?? []);
        throw e;
      });
    return {
      addResults: r.adds,
      updateResults: r.updates,
      deleteResults: [...r.deletes, ...unknown],
      ...(r.attachments ? { attachments: r.attachments } : {}),
    };
  }

  /**
   * With useGlobalIds, updates name their feature by GlobalID: each gets the object id of the feature that has it (one
   * that names none keeps no object id and is refused as an update without one).
   */
  private async byGlobalId(service: ServiceRow, layer: LayerRow, updates: ParsedFeature[]): Promise<ParsedFeature[]> {
    const gid = layer.fields.find((x) => x.type === 'esriFieldTypeGlobalID');
    const oid = layer.fields.find((x) => x.type === 'esriFieldTypeOID')!;
    const named = (f: ParsedFeature) => {
      const a = f.object && f.attributes && typeof f.attributes === 'object' ? (f.attributes as Record<string, unknown>) : undefined;
      const v = a && gid ? Object.entries(a).find(([k]) => k.toLowerCase() === gid.column)?.[1] : undefined;
      const m = typeof v === 'string' ? /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i.exec(v) : null;
      return m ? { a: a!, g: m[1].toLowerCase() } : undefined;
    };
    const found = await this.data.oidsByGlobalIds(
      service.schema_name,
      layer,
      updates.flatMap((f) => named(f)?.g ?? []),
    );
    return updates.map((f) => {
      const n = named(f);
      const id = n && found.get(n.g);
      return id === undefined ? f : { ...f, attributes: { ...n!.a, [oid.name]: id } };
    });
  }

  /** Feature-list parameters (JSON text), parsed with their geometry converted on the geometry threads. */
  private parse(layer: LayerRow, lists: Record<string, string | undefined>): Promise<ParsedFeature[][]> {
    return this.geometry.parseEdits(
      Object.entries(lists).map(([name, text]) => ({ name, text })),
      layer.geometry_type,
      MAX_EDITS,
    );
  }

  /**
   * Validates every feature, then writes in one transaction. With rollbackOnFailure (the default) a single bad
   * feature fails the request and nothing is written; without it the good ones are written and the bad reported.
   */
  private async apply(
    service: ServiceRow,
    layer: LayerRow,
    p: EditsDto,
    edits: { adds?: ParsedFeature[]; updates?: ParsedFeature[]; deletes?: number[]; attachments?: AttachmentEditPlan },
  ) {
    let removed: string[] = [];
    const r = await this.write(service, layer, p, edits, (keys) => (removed = keys));
    await this.attachments.removeFiles(removed);
    return r;
  }

  /** apply's checks and transaction; `removed` is told the attachment files no row names once it commits. */
  private async write(
    service: ServiceRow,
    layer: LayerRow,
    p: EditsDto,
    edits: { adds?: ParsedFeature[]; updates?: ParsedFeature[]; deletes?: number[]; attachments?: AttachmentEditPlan },
    removed: (keys: string[]) => void,
  ) {
    const rollback = boolParam('rollbackOnFailure', p.rollbackOnFailure, true);
    const requestSrid = srParam('sr', p.sr);
    // With useGlobalIds an add keeps the GlobalID its client gave (attachments of the same request name it).
    const keepGlobalId = boolParam('useGlobalIds', p.useGlobalIds, false);
    const adds = (edits.adds ?? []).map((f) => this.prepare(layer, f, 'add', requestSrid, keepGlobalId));
    const updates = (edits.updates ?? []).map((f) => this.prepare(layer, f, 'update', requestSrid));
    this.rejectDuplicates(updates);
    const srids = new Set([...adds, ...updates].flatMap((x) => (x.ok && x.write.geometry ? [x.write.geometry.srid] : [])));
    for (const srid of srids) {
      if (!(await this.repo.sridExists(srid))) throw Errors.badRequest('Invalid spatial reference.', [`Unknown wkid ${srid}.`]);
    }
    const failures = [...adds, ...updates].filter((x): x is Extract<Prepared, { ok: false }> => !x.ok);
    if (rollback && failures.length) {
      throw Errors.badRequest(
        'Unable to complete operation.',
        failures.slice(0, 20).map((f) => (f.oid ? `Object ${f.oid}: ${f.description}` : f.description)),
      );
    }
    const held = await this.features.attachmentsLayer(service, layer);
    return this.data
      .transaction(async (m) => {
        const r = {
          adds: await this.writeAdds(m, service, layer, adds),
          updates: await this.writeUpdates(m, service, layer, updates),
          deletes: await this.writeDeletes(m, service, layer, edits.deletes ?? []),
        };
        const dropped = await this.attachments.dropForFeatures(
          m,
          held,
          r.deletes.filter((d) => d.success).map((d) => d.objectId!),
        );
        const att = edits.attachments ? await this.attachmentEdits.apply(m, { service, layer: held }, edits.attachments) : undefined;
        const attFailed = att
          ? Object.values(att.results)
              .flat()
              .filter((x) => !x.success)
          : [];
        if (rollback && attFailed.length)
          throw Errors.badRequest(
            'Unable to complete operation.',
            attFailed.slice(0, 20).map((x) => `Attachment ${x.globalId}: ${x.error!.description}`),
          );
        removed([...dropped, ...(att?.replaced ?? [])]);
        const missing = [...r.updates, ...r.deletes].filter((x) => !x.success);
        // Throwing inside the transaction undoes what was written.
        if (rollback && missing.length)
          throw Errors.badRequest(
            'Unable to complete operation.',
            missing.slice(0, 20).map((x) => `Object ${x.objectId}: ${x.error!.description}`),
          );
        return { ...r, attachments: att?.results };
      })
      .catch((e: unknown) => {
        // A view layer's check option (layers/view-schema.ts): the edit would put a row outside the view's filter.
        if ((e as { code?: string }).code === '44000')
          throw Errors.badRequest('Unable to complete operation.', [
            "An added or updated feature would fall outside the view's definition.",
          ]);
        throw e;
      });
  }

  private prepare(
    layer: LayerRow,
    f: ParsedFeature,
    mode: 'add' | 'update',
    requestSrid: number | undefined,
    keepGlobalId = false,
  ): Prepared {
    const oidField = layer.fields.find((x) => x.type === 'esriFieldTypeOID')!;
    const raw = f.attributes as Record<string, unknown> | undefined;
    let oid: number | null = null;
    try {
      if (!f.object) throw new AttributeError('Each feature must be a JSON object.');
      if (mode === 'update') {
        const v = Object.entries(raw ?? {}).find(([k]) => k.toLowerCase() === oidField.column)?.[1];
        if (!Number.isInteger(v) || (v as number) < 1) throw new AttributeError(`Updates need '${oidField.name}' in attributes.`);
        oid = v as number;
      }
      const attributes = convertAttributes(layer.fields, raw, mode);
      const gid = keepGlobalId ? layer.fields.find((x) => x.type === 'esriFieldTypeGlobalID') : undefined;
      const given = gid && Object.entries(raw ?? {}).find(([k]) => k.toLowerCase() === gid.column)?.[1];
      if (gid && given !== undefined && given !== null) attributes[gid.column] = toColumnText(gid, given);
      let geometry: FeatureWrite['geometry'];
      const g = f.geometry;
      if (g.kind === 'error') throw new GeometryError(g.message);
      if (g.kind === 'null') geometry = null;
      else if (g.kind === 'ok') geometry = { wkb: g.wkb, srid: g.wkid ?? requestSrid ?? layer.srid };
      return { ok: true, write: { oid: oid ?? undefined, attributes, geometry: mode === 'add' ? (geometry ?? null) : geometry } };
    } catch (e) {
      if (e instanceof AttributeError || e instanceof GeometryError) return { ok: false, oid, description: e.message };
      throw e;
    }
  }

  private rejectDuplicates(updates: Prepared[]) {
    const seen = new Set<number>();
    for (const u of updates) {
      if (!u.ok) continue;
      if (seen.has(u.write.oid!))
        throw Errors.badRequest('Unable to complete operation.', [`Object ${u.write.oid} is updated twice in one request.`]);
      seen.add(u.write.oid!);
    }
  }

  private async writeAdds(m: EntityManager, s: ServiceRow, l: LayerRow, adds: Prepared[]): Promise<EditResult[]> {
    const good = adds.filter((a): a is Extract<Prepared, { ok: true }> => a.ok);
    const ids = await this.data.insert(
      m,
      s.schema_name,
      l,
      good.map((a) => a.write),
    );
    let i = 0;
    const gid = l.fields.find((x) => x.type === 'esriFieldTypeGlobalID')?.column;
    return adds.map((a) => (a.ok ? ok(ids[i++], gid ? (a.write.attributes[gid] ?? null) : null) : fail(null, a.description)));
  }

  private async writeUpdates(m: EntityManager, s: ServiceRow, l: LayerRow, updates: Prepared[]): Promise<EditResult[]> {
    const good = updates.filter((u): u is Extract<Prepared, { ok: true }> => u.ok);
    const found = await this.data.update(
      m,
      s.schema_name,
      l,
      good.map((u) => u.write),
    );
    return updates.map((u) => {
      if (!u.ok) return fail(u.oid, u.description);
      return found.has(u.write.oid!)
        ? ok(u.write.oid!)
        : fail(u.write.oid!, 'Update for the object was not attempted. Object may not exist.', 1019);
    });
  }

  private async writeDeletes(m: EntityManager, s: ServiceRow, l: LayerRow, ids: number[]): Promise<EditResult[]> {
    const deleted = await this.data.deleteByIds(m, s.schema_name, l, ids);
    return ids.map((id) => (deleted.has(id) ? ok(id) : fail(id, missingDelete, 1019)));
  }
}

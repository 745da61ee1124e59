import { post, read, uniq } from './client';

const ONE_TO_MANY = 'esriRelCardinalityOneToMany';

export interface ViewRelatedFixture {
  source: { url: string; itemId: string };
  view: { url: string; itemId: string };
  /** Object ids in the source (and the view, which keeps them) of the public and the private places. */
  publicOids: number[];
  privateOids: number[];
  /** Attachment ids by place object id (one text file each, its bytes `file-<oid>`). */
  attachmentOf: Map<number, number>;
}

/**
 * A private source with layer 0 (Places: Name, Kind, Secret, with attachments) and table 1 (Visits: PlaceId, Note,
 * Inspector, Grade) related by relationship 0 (Visits.PlaceId to Places.OBJECTID), each place with one attachment
 * and two visits (grades 1 and 9). Its view shows Name of the public places, and PlaceId and Note of the visits of
 * grade 5 or less: Kind, Secret, Inspector and Grade are hidden, as are private places and high grades.
 */
export async function viewRelatedFixture(
  base: string,
  owner: { username: string; token: string },
  places = 4,
  capabilities = 'Query',
): Promise<ViewRelatedFixture> {
  const sourceName = uniq('vrsrc');
  const placesLayer = {
    id: 0,
    name: 'Places',
    geometryType: 'esriGeometryPoint',
    hasAttachments: true,
    fields: [
      { name: 'GlobalID', type: 'esriFieldTypeGlobalID' },
      { name: 'Name', type: 'esriFieldTypeString', length: 40 },
      { name: 'Kind', type: 'esriFieldTypeString', length: 10 },
      { name: 'Secret', type: 'esriFieldTypeString', length: 40 },
    ],
    relationships: [
      { id: 0, name: 'Visits', relatedTableId: 1, cardinality: ONE_TO_MANY, role: 'esriRelRoleOrigin', keyField: 'OBJECTID' },
    ],
  };
  const visits = {
    id: 1,
    name: 'Visits',
    fields: [
      { name: 'PlaceId', type: 'esriFieldTypeInteger' },
      { name: 'Note', type: 'esriFieldTypeString', length: 40 },
      { name: 'Inspector', type: 'esriFieldTypeString', length: 40 },
      { name: 'Grade', type: 'esriFieldTypeInteger' },
    ],
    relationships: [
      { id: 0, name: 'Places', relatedTableId: 0, cardinality: ONE_TO_MANY, role: 'esriRelRoleDestination', keyField: 'PlaceId' },
    ],
  };
  const created0 = await post(
    base,
    `content/users/${owner.username}/createService`,
    {
      createParameters: JSON.stringify({ name: sourceName, capabilities: 'Query,Create,Update,Delete,Editing' }),
      outputType: 'featureService',
    },
    owner.token,
  );
  const source = { serviceurl: created0.body.serviceurl as string, itemId: created0.body.itemId as string };
  const admin = (url: string) => url.replace('/rest/services/', '/rest/admin/services/');
  const both = { layers: [placesLayer], tables: [visits] };
  const defined = await post(admin(source.serviceurl), 'addToDefinition', { addToDefinition: JSON.stringify(both) }, owner.token);
  if (!defined.body?.success) throw new Error(`addToDefinition failed: ${defined.text}`);
  const rows = Array.from({ length: places }, (_, i) => ({
    attributes: { Name: `place-${i}`, Kind: i % 2 ? 'private' : 'public', Secret: `secret-${i}` },
    geometry: { x: 10 + i, y: 50 },
  }));
  const added = await post(`${source.serviceurl}/0`, 'addFeatures', { features: JSON.stringify(rows) }, owner.token);
  const oids: number[] = added.body.addResults.map((r: { objectId: number }) => r.objectId);
  const visitRows = oids.flatMap((oid) =>
    [1, 9].map((grade) => ({ attributes: { PlaceId: oid, Note: `note-${oid}-${grade}`, Inspector: `inspector-${oid}`, Grade: grade } })),
  );
  await post(`${source.serviceurl}/1`, 'addFeatures', { features: JSON.stringify(visitRows) }, owner.token);
  const attachmentOf = new Map<number, number>();
  for (const oid of oids) {
    const form = new FormData();
    form.set('f', 'json');
    form.set('token', owner.token);
    form.set('attachment', new Blob([`file-${oid}`]), `photo-${oid}.txt`);
    const r = await read(await fetch(`${source.serviceurl}/0/${oid}/addAttachment`, { method: 'POST', body: form }));
    attachmentOf.set(oid, r.body.addAttachmentResult.objectId);
  }
  const created = await post(
    base,
    `content/users/${owner.username}/createService`,
    { createParameters: JSON.stringify({ name: uniq('vrview'), capabilities }), outputType: 'featureService', isView: 'true' },
    owner.token,
  );
  if (!created.body?.itemId) throw new Error(`createService failed: ${created.text}`);
  const entry = (id: number, name: string, fields: string[], where: string) => ({
    id,
    name,
    viewDefinitionQuery: where,
    adminLayerInfo: {
      viewLayerDefinition: { sourceServiceName: sourceName, sourceLayerId: id, sourceLayerFields: fields.map((n) => ({ name: n })) },
    },
  });
  const def = await post(
    admin(created.body.serviceurl),
    'addToDefinition',
    {
      addToDefinition: JSON.stringify({
        layers: [entry(0, 'Public places', ['GlobalID', 'Name'], "Kind = 'public'")],
        tables: [entry(1, 'Low visits', ['PlaceId', 'Note'], 'Grade <= 5')],
      }),
    },
    owner.token,
  );
  if (!def.body?.success) throw new Error(`addToDefinition of the view failed: ${def.text}`);
  return {
    source: { url: source.serviceurl, itemId: source.itemId },
    view: { url: created.body.serviceurl, itemId: created.body.itemId },
    publicOids: oids.filter((_, i) => i % 2 === 0),
    privateOids: oids.filter((_, i) => i % 2 === 1),
    attachmentOf,
  };
}

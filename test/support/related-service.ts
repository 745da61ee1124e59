import { createHostedService, post } from './client';

const ONE_TO_MANY = 'esriRelCardinalityOneToMany';

/**
 * A hosted service with point layer 0 (Name, Score; one feature, 'a') and table 1 (SiteId, Note; one row of feature 1,
 * Note 'n'), related by relationship 0: the table's SiteId to the layer's OBJECTID. Made as clients make one.
 */
export async function createRelatedService(
  base: string,
  owner: { username: string; token: string },
): Promise<{ itemId: string; url: string; admin: string; name: string }> {
  const sites = {
    id: 0,
    name: 'Sites',
    geometryType: 'esriGeometryPoint',
    fields: [
      { name: 'Name', type: 'esriFieldTypeString' },
      { name: 'Score', type: 'esriFieldTypeDouble' },
    ],
  };
  const { itemId, serviceurl: url } = await createHostedService(base, owner, [sites]);
  const admin = url.replace('/rest/services/', '/rest/admin/services/');
  const checks = {
    id: 1,
    name: 'Checks',
    fields: [
      { name: 'SiteId', type: 'esriFieldTypeInteger' },
      { name: 'Note', type: 'esriFieldTypeString' },
    ],
    relationships: [
      { id: 0, name: 'Sites', relatedTableId: 0, cardinality: ONE_TO_MANY, role: 'esriRelRoleDestination', keyField: 'SiteId' },
    ],
  };
  const added = await post(admin, 'addToDefinition', { addToDefinition: JSON.stringify({ tables: [checks] }) }, owner.token);
  if (!added.body?.success) throw new Error(`addToDefinition failed: ${added.text}`);
  // The layer's side once the table exists: a side names a layer of the service.
  const origin = { id: 0, name: 'Checks', relatedTableId: 1, cardinality: ONE_TO_MANY, role: 'esriRelRoleOrigin', keyField: 'OBJECTID' };
  const related = await post(
    `${admin}/0`,
    'addToDefinition',
    { addToDefinition: JSON.stringify({ relationships: [origin] }) },
    owner.token,
  );
  if (!related.body?.success) throw new Error(`addToDefinition of the relationship failed: ${related.text}`);
  await post(
    `${url}/0`,
    'addFeatures',
    { features: JSON.stringify([{ attributes: { Name: 'a' }, geometry: { x: 1, y: 1 } }]) },
    owner.token,
  );
  await post(`${url}/1`, 'addFeatures', { features: JSON.stringify([{ attributes: { SiteId: 1, Note: 'n' } }]) }, owner.token);
  const name = /services\/([^/]+)\/FeatureServer/.exec(url)![1];
  return { itemId, url, admin, name };
}

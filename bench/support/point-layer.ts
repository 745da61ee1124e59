import { BENCH_ADMIN, createHostedService, form, startBenchApp } from './bench-app';

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;

/**
 * The query benches' layer: random points with a string, an integer, two doubles and a date, loaded with SQL so the
 * benches measure reading, not writing. Returns the service as createHostedService does.
 */
export async function createPointLayer(b: BenchApp, name: string, pageSize: number, points: number) {
  const created = await createHostedService(
    b.base,
    { username: BENCH_ADMIN.username, token: b.token },
    [
      {
        name: 'pts',
        geometryType: 'esriGeometryPoint',
        fields: [
          { name: 'name', type: 'esriFieldTypeString', length: 40 },
          { name: 'n', type: 'esriFieldTypeInteger' },
          { name: 'a', type: 'esriFieldTypeDouble' },
          { name: 'b', type: 'esriFieldTypeDouble' },
          { name: 't', type: 'esriFieldTypeDate' },
        ],
      },
    ],
    { name, maxRecordCount: pageSize },
  );
  await b.db.query(
    `INSERT INTO "svc_${created.itemId}"."l0" (name, n, a, b, t, shape)
     SELECT 'point ' || g, g, random() * 1000, random(), now() - g * interval '1 minute', ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 170 - 85), 4326)
       FROM generate_series(1, $1) g`,
    [points],
  );
  return created;
}

/**
 * A hosted feature layer view of the point layer with every row and field (its filter passes them all), as a view
 * client makes one: createService with isView, then addToDefinition naming the source. Returns its service URL.
 */
export async function createPointView(b: BenchApp, sourceName: string, name: string): Promise<string> {
  return (await createView(b, sourceName, name, 'OBJECTID > 0')).url;
}

/** A view of layer 0 of `sourceName` showing all its fields and the rows `where` selects. */
export async function createView(b: BenchApp, sourceName: string, name: string, where: string): Promise<{ url: string; itemId: string }> {
  const created = await form(`${b.base}/content/users/${BENCH_ADMIN.username}/createService`, {
    createParameters: JSON.stringify({ name }),
    outputType: 'featureService',
    isView: 'true',
    token: b.token,
  });
  const viewLayerDefinition = { sourceServiceName: sourceName, sourceLayerId: 0, sourceLayerFields: '*' };
  await form(`${created.serviceurl.replace('/rest/services/', '/rest/admin/services/')}/addToDefinition`, {
    addToDefinition: JSON.stringify({
      layers: [{ name: 'pts', viewDefinitionQuery: where, adminLayerInfo: { viewLayerDefinition } }],
    }),
    token: b.token,
  });
  return { url: created.serviceurl, itemId: created.itemId };
}

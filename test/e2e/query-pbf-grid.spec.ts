/**
 * f=pbf pages of points put each point on the quantization grid in JavaScript (grid.ts, pointOnGrid), where quantized
 * f=json pages let PostGIS move and snap it. The two must agree on every point: here thousands, random and on the
 * halves of a pixel (which both round to the even one), in the layer's own spatial reference and reprojected, from
 * either origin.
 */
import { decodeFeatureCollection } from '../../src/feature-server/pbf/feature-collection';
import { createHostedService, get } from '../support/client';
import { withApp } from '../support/harness';

/* eslint-disable @typescript-eslint/no-explicit-any */

const POINTS = 2000;

describe('f=pbf points on the quantization grid', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;
  let layer: string;

  beforeAll(async () => {
    const service = await createHostedService(t.base, owner, [{ name: 'Grid', geometryType: 'esriGeometryPoint', fields: [] }], {
      name: `grid_${Date.now()}`,
      maxRecordCount: POINTS,
    });
    layer = `${service.serviceurl}/0`;
    const [l] = await t.db.query(
      `SELECT s.schema_name, l.table_name FROM feature_services s JOIN feature_layers l ON l.service_item_id = s.item_id
        WHERE s.item_id = $1 AND l.layer_id = 0`,
      [service.itemId],
    );
    // Every other point on the middle of a pixel of the 0.25° grids below, the rest anywhere.
    await t.db.query(
      `INSERT INTO "${l.schema_name}"."${l.table_name}" (shape)
       SELECT ST_SetSRID(CASE WHEN g % 2 = 0 THEN ST_MakePoint(round(random() * 1400 - 700) * 0.25 + 0.125, round(random() * 680 - 340) * 0.25 - 0.125)
                              ELSE ST_MakePoint(random() * 360 - 180, random() * 170 - 85) END, 4326)
         FROM generate_series(1, ${POINTS}) g`,
    );
  });

  it('puts every point where PostGIS puts it for quantized f=json', async () => {
    const grids = [
      { outSR: 4326, tolerance: 0.25, extent: { xmin: -180, ymin: -90, xmax: 180, ymax: 90 } },
      { outSR: 4326, tolerance: 0.0123, extent: { xmin: -181.5, ymin: -91.25, xmax: 180, ymax: 90.75 } },
      {
        outSR: 3857,
        tolerance: 2445.98490512564,
        extent: { xmin: -20037508.342789244, ymin: -20037508.342789244, xmax: 20037508.342789244, ymax: 20037508.342789244 },
      },
      { outSR: 3857, tolerance: 0.5, extent: { xmin: -2e7, ymin: -2e7, xmax: 2e7, ymax: 2e7 } },
    ];
    for (const { outSR, tolerance, extent } of grids)
      for (const originPosition of ['upperLeft', 'lowerLeft']) {
        const quantizationParameters = JSON.stringify({ mode: 'view', originPosition, tolerance, extent });
        const params = { where: '1=1', outFields: 'OBJECTID', orderByFields: 'OBJECTID', outSR, quantizationParameters };
        const json = (await get(layer, 'query', params, owner.token)).body;
        const res = await fetch(`${layer}/query?${new URLSearchParams({ ...params, outSR: String(outSR), f: 'pbf', token: owner.token })}`);
        const pbf = (decodeFeatureCollection(new Uint8Array(await res.arrayBuffer())) as any).queryResult.featureResult;
        expect(pbf.features).toHaveLength(POINTS);
        expect(pbf.features.map((f: any) => f.geometry.coords)).toEqual(json.features.map((f: any) => [f.geometry.x, f.geometry.y]));
      }
  });
});

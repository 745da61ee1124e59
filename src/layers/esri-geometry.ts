/** GeoJSON geometry as PostGIS reads and writes it. */
export type GeoJson =
  | { type: 'Point'; coordinates: number[] }
  | { type: 'MultiPoint' | 'LineString'; coordinates: number[][] }
  | { type: 'MultiLineString' | 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] };

export class GeometryError extends Error {}

/** Twice the signed area (shoelace); positive means clockwise with y up, which is how ArcGIS marks exterior rings. */
export function signedArea2(ring: number[][]): number {
  let sum = 0;
  for (let i = 0; i < ring.length - 1; i++) sum += (ring[i + 1][0] - ring[i][0]) * (ring[i + 1][1] + ring[i][1]);
  return sum;
}

export function isClockwise(ring: number[][]): boolean {
  return signedArea2(ring) > 0;
}

// ArcGIS JSON → GeoJSON (edits) is in geometry/convert.ts: it runs on worker threads.

const orient = (ring: number[][], clockwise: boolean) => (isClockwise(ring) === clockwise ? ring : [...ring].reverse());
/** ArcGIS winding: the exterior clockwise, holes counter-clockwise. */
const esriRings = (polygon: number[][][]) => polygon.map((ring, i) => orient(ring, i === 0));

/**
 * GeoJSON → ArcGIS JSON geometry. PostGIS output forced clockwise (ST_ForcePolygonCW) is already in ArcGIS winding;
 * GeoJSON from elsewhere (RFC 7946 winds the other way) needs `fixWinding`.
 */
export function geoJsonToEsri(g: GeoJson, fixWinding = false): Record<string, unknown> {
  const rings = (polygon: number[][][]) => (fixWinding ? esriRings(polygon) : polygon);
  switch (g.type) {
    case 'Point':
      return { x: g.coordinates[0], y: g.coordinates[1] };
    case 'MultiPoint':
      return { points: g.coordinates };
    case 'LineString':
      return { paths: [g.coordinates] };
    case 'MultiLineString':
      return { paths: g.coordinates };
    case 'Polygon':
      return { rings: rings(g.coordinates) };
    case 'MultiPolygon':
      return { rings: g.coordinates.flatMap(rings) };
  }
}

/** The spatial reference a geometry names for itself, if any. */
export function geometryWkid(g: unknown): number | undefined {
  const sr = (g as { spatialReference?: { wkid?: unknown; latestWkid?: unknown } } | null)?.spatialReference;
  const wkid = sr?.latestWkid ?? sr?.wkid;
  return Number.isInteger(wkid) ? (wkid as number) : undefined;
}

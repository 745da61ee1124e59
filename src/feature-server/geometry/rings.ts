/**
 * ArcGIS polygon rings → polygons, for the geometry worker threads only (flatbush is an ES module, which Node loads
 * with require() but jest's module system does not; nothing the API or the tests import directly may import this).
 *
 * Clockwise rings are exteriors, the others holes of the smallest exterior that contains them. Matching every hole
 * against every exterior is quadratic (minutes for tens of thousands of rings); here the exteriors' bounding boxes go into
 * a static R-tree (flatbush: packed Hilbert R-tree, the well-kept choice for build-once, query-many), so a hole only
 * meets the exteriors whose box holds it, smallest first. Large exteriors answer point-in-ring through an R-tree of
 * their edges, so a country outline with thousands of lakes costs a few edge tests per lake, not its whole length.
 * Input crafted so that boxes overlap anyway is stopped by a budget of tests, as a per-feature error.
 */
import Flatbush from 'flatbush';
import { GeometryError, signedArea2 } from '../../layers/esri-geometry';

/** Rings longer than this get an edge index the first time a hole is tested against them. */
const INDEX_EDGES_FROM = 64;
/**
 * Work units per polygon: an edge test is one, an exterior a hole's box search returns is four (search and sort cost
 * more than an edge test). Real data needs tens per hole, a few thousand when lakes sit in a long coastline; 20 M
 * units keep one polygon within GEOMETRY_TIMEOUT_MS on a busy core, and crafted overlapping boxes reach them first.
 */
export const RING_TEST_BUDGET = 20_000_000;
const CANDIDATE_COST = 4;

interface Budget {
  left: number;
}

function spend(budget: Budget, n: number): void {
  budget.left -= n;
  if (budget.left < 0)
    throw new GeometryError(`The polygon's rings overlap too much to be assembled (more than ${RING_TEST_BUDGET} ring tests).`);
}

/** Even-odd ray test to the right of (x, y); the edge rule makes a vertex on the ray count once. */
const crosses = (a: number[], b: number[], x: number, y: number) =>
  a[1] > y !== b[1] > y && x < ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]) + a[0];

class Shell {
  private edges?: Flatbush;

  constructor(
    readonly ring: number[][],
    readonly area: number,
  ) {}

  contains(x: number, y: number, budget: Budget): boolean {
    const r = this.ring;
    let inside = false;
    if (r.length <= INDEX_EDGES_FROM) {
      spend(budget, r.length);
      for (let i = 0, j = r.length - 1; i < r.length; j = i++) if (crosses(r[i], r[j], x, y)) inside = !inside;
      return inside;
    }
    this.edges ??= edgeIndex(r);
    // Only edges whose box meets the ray from (x, y) to the right can cross it.
    this.edges.search(x, y, Infinity, y, (i) => {
      spend(budget, 1);
      if (crosses(r[i + 1], r[i], x, y)) inside = !inside;
      return false;
    });
    return inside;
  }
}

/** Edge i runs from vertex i to i + 1 (rings are closed, so the last edge ends where the first starts). */
function edgeIndex(r: number[][]): Flatbush {
  const index = new Flatbush(r.length - 1);
  for (let i = 0; i < r.length - 1; i++) {
    const [a, b] = [r[i], r[i + 1]];
    index.add(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1]));
  }
  index.finish();
  return index;
}

/** Closed, validated rings → polygons (exterior first, then its holes). */
export function assemblePolygons(rings: number[][][]): number[][][][] {
  const areas = rings.map(signedArea2);
  // Rings written with the other convention (all counter-clockwise) are read as exteriors too.
  const exteriorIsCw = areas.some((a) => a > 0);
  const shells: Shell[] = [];
  const holes: number[][][] = [];
  rings.forEach((r, i) => (areas[i] > 0 === exteriorIsCw ? shells.push(new Shell(r, Math.abs(areas[i]))) : holes.push(r)));
  const polygons = shells.map((s) => [s.ring]);
  if (!holes.length) return polygons;
  const boxes = new Flatbush(shells.length);
  for (const s of shells) {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const v of s.ring) {
      if (v[0] < minX) minX = v[0];
      if (v[0] > maxX) maxX = v[0];
      if (v[1] < minY) minY = v[1];
      if (v[1] > maxY) maxY = v[1];
    }
    boxes.add(minX, minY, maxX, maxY);
  }
  boxes.finish();
  const budget: Budget = { left: RING_TEST_BUDGET };
  for (const hole of holes) {
    const [x, y] = hole[0];
    const candidates = boxes.search(x, y, x, y);
    spend(budget, candidates.length * CANDIDATE_COST);
    candidates.sort((a, b) => shells[a].area - shells[b].area);
    const owner = candidates.find((i) => shells[i].contains(x, y, budget));
    // A hole outside every exterior is kept with the last one, as before; PostGIS will judge the result.
    polygons[owner ?? polygons.length - 1].push(hole);
  }
  return polygons;
}

/**
 * Where earlier pages ended, so that the next page in object id order starts from there instead of skipping every
 * row before it: clients (GDAL, QGIS, arcgis-rest-js) page a layer with resultOffset, which made reading a whole
 * layer quadratic in its size.
 *
 * A point says that, when the layer's data version (data-version.ts) was `version`, the row at position `offset` of
 * the selection had object id `oid`. Nothing here is trusted for the rows: the page statement reads the version in
 * its own snapshot and only uses the point when it is unchanged (feature-data.repository.ts).
 *
 * The key holds everything that decides the selection: the caller (anonymous callers share theirs, as for
 * known-layers.ts) and the definition stamp, which the caller only holds while it may read the layer, and the table,
 * the order and the filter with its values. So a caller's points come from its own pages of rows it could read, and
 * no caller's pages run faster or slower for what another caller read.
 */
export interface ResumePoint {
  offset: number;
  oid: number;
  /** The data version as PostgreSQL printed it (a bigint). */
  version: string;
}

export class ResumePoints {
  private readonly points = new Map<string, ResumePoint[]>();
  private chars = 0;

  /**
   * @param max      most selections remembered, the least recently used going first
   * @param maxChars most characters of keys held, which grow with the where clause and its values
   * @param perKey   points held per selection: clients paging the same selection each continue from their own
   */
  constructor(
    private readonly max = 1000,
    private readonly maxChars = 4_000_000,
    private readonly perKey = 32,
  ) {}

  /** The point nearest before `offset` (or at it), if any. */
  get(key: string, offset: number): ResumePoint | undefined {
    let best: ResumePoint | undefined;
    for (const p of this.points.get(key) ?? []) if (p.offset <= offset && (!best || p.offset > best.offset)) best = p;
    return best;
  }

  /** Remembers `point`, dropping the selection's points of other versions, which can no longer be used. */
  remember(key: string, point: ResumePoint): void {
    const kept = (this.points.get(key) ?? []).filter((p) => p.version === point.version && p.offset !== point.offset);
    kept.push(point);
    if (kept.length > this.perKey) kept.shift();
    this.forget(key);
    this.points.set(key, kept);
    this.chars += key.length;
    while (this.points.size > this.max || this.chars > this.maxChars) this.forget(this.points.keys().next().value!);
  }

  private forget(key: string): void {
    if (!this.points.delete(key)) return;
    this.chars -= key.length;
  }
}

/**
 * GeoJSON coordinates → ISO WKB (2D, little-endian), base64, for ST_GeomFromWKB: PostGIS reads binary vertices several
 * times faster than it parses GeoJSON text, and the edit statement is where a large geometry's cost lands. Written by
 * hand over one buffer because wkx, the common library, builds an object per vertex.
 */
import { GeoJson } from '../../layers/esri-geometry';

const TYPE = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6 } as const;
const HEADER = 5;

const lineBytes = (line: number[][]) => 4 + 16 * line.length;
const polygonBytes = (rings: number[][][]) => rings.reduce((n, r) => n + lineBytes(r), 4);

function size(g: GeoJson): number {
  switch (g.type) {
    case 'Point':
      return HEADER + 16;
    case 'MultiPoint':
      return HEADER + 4 + g.coordinates.length * (HEADER + 16);
    case 'LineString':
      return HEADER + lineBytes(g.coordinates);
    case 'Polygon':
      return HEADER + polygonBytes(g.coordinates);
    case 'MultiLineString':
      return g.coordinates.reduce((n, l) => n + HEADER + lineBytes(l), HEADER + 4);
    case 'MultiPolygon':
      return g.coordinates.reduce((n, p) => n + HEADER + polygonBytes(p), HEADER + 4);
  }
}

class Writer {
  private at = 0;
  constructor(readonly buf: Buffer) {}
  header(type: number): void {
    this.buf.writeUInt8(1, this.at);
    this.buf.writeUInt32LE(type, this.at + 1);
    this.at += HEADER;
  }
  count(n: number): void {
    this.buf.writeUInt32LE(n, this.at);
    this.at += 4;
  }
  point(v: number[]): void {
    this.buf.writeDoubleLE(v[0], this.at);
    this.buf.writeDoubleLE(v[1], this.at + 8);
    this.at += 16;
  }
  line(l: number[][]): void {
    this.count(l.length);
    for (const v of l) this.point(v);
  }
  polygon(rings: number[][][]): void {
    this.count(rings.length);
    for (const r of rings) this.line(r);
  }
  /** A multi-geometry's members, each a geometry of `type` with its own header. */
  parts<T>(members: T[], type: number, write: (m: T) => void): void {
    this.count(members.length);
    for (const m of members) {
      this.header(type);
      write(m);
    }
  }
}

export function toWkb(g: GeoJson): Buffer {
  const w = new Writer(Buffer.allocUnsafe(size(g)));
  w.header(TYPE[g.type]);
  switch (g.type) {
    case 'Point':
      w.point(g.coordinates);
      break;
    case 'LineString':
      w.line(g.coordinates);
      break;
    case 'Polygon':
      w.polygon(g.coordinates);
      break;
    case 'MultiPoint':
      w.parts(g.coordinates, TYPE.Point, (v) => w.point(v));
      break;
    case 'MultiLineString':
      w.parts(g.coordinates, TYPE.LineString, (l) => w.line(l));
      break;
    case 'MultiPolygon':
      w.parts(g.coordinates, TYPE.Polygon, (p) => w.polygon(p));
      break;
  }
  return w.buf;
}

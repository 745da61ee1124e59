/**
 * How PostgreSQL hands an f=pbf page to feature-writer.ts: one binary column per field (and for the geometry and the
 * centroid), each the page's values one after another as the type's send function writes them, plus a list of the
 * features that have nulls. Nothing is printed as text and parsed back, which cost more than encoding the protocol
 * buffer: a value is read where it lies, and a string's bytes are copied into the reply as they came. The protocol
 * buffer itself is not written in SQL: a varint or a little-endian double takes a function call per byte there.
 *
 * Every column holds a value for each feature that has one, in the page's order; a null takes no room, and the nulls
 * column says which they were: for each feature with a null, its place on the page (int4, from 1) and one byte per
 * slot (the fields, then the geometry, then the centroid), 1 for null.
 */
import { FieldType, GeometryType } from '../../layers/layer-schema';
import { PbfTransform } from './grid';

/** What a field's column holds: int4 (big-endian), float8 (big-endian), or text as int4 byte length + UTF-8 bytes. */
export type ColumnKind = 'int4' | 'float8' | 'text';

export const COLUMN_KIND: Record<FieldType, ColumnKind> = {
  esriFieldTypeOID: 'int4',
  esriFieldTypeSmallInteger: 'int4',
  esriFieldTypeInteger: 'int4',
  esriFieldTypeBigInteger: 'float8',
  esriFieldTypeSingle: 'float8',
  esriFieldTypeDouble: 'float8',
  esriFieldTypeString: 'text',
  esriFieldTypeDate: 'float8',
  esriFieldTypeGUID: 'text',
  esriFieldTypeGlobalID: 'text',
};

/**
 * An f=pbf page as PostgreSQL sends it: `count` features; `columns` the fields' in outFields order, then the
 * geometry's (a point as two float8 on the grid, another shape as the text of its grid GeoJSON), then the centroid's
 * (grid GeoJSON text); null for a column without a value.
 */
export interface PbfPage {
  count: number;
  columns: (Buffer | null)[];
  nulls: Buffer | null;
  /** Points come in the reply's spatial reference, to be put on this grid (grid.ts, pointOnGrid); else on it already. */
  pointGrid?: PbfTransform;
}

/** A number from a page's values as tests and tools give them, where NaN and the infinities may come as strings. */
const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));

/**
 * The page PostgreSQL sends for `rows` as pbf-features.ts reads them (each row its values in `fields` order, then the
 * geometry when `geometryType` is given, then the centroid when `centroids` is set; null for none): what lets the
 * tests compare feature-writer.ts with protobufjs over any values.
 */
export function pageOfRows(rows: unknown[][], fields: { type: FieldType }[], geometryType?: GeometryType, centroids = false): PbfPage {
  const kinds: (ColumnKind | 'xy' | 'geojson')[] = fields.map((f) => COLUMN_KIND[f.type]);
  if (geometryType) kinds.push(geometryType === 'esriGeometryPoint' ? 'xy' : 'geojson');
  if (centroids) kinds.push('geojson');
  const columns: Buffer[][] = kinds.map(() => []);
  const nulls: Buffer[] = [];
  rows.forEach((r, row) => {
    const flags = Buffer.alloc(kinds.length);
    kinds.forEach((kind, i) => {
      const v = r[i];
      if (v === null || v === undefined || (kind === 'xy' && !Array.isArray(v))) return void (flags[i] = 1);
      const b = Buffer.alloc(kind === 'int4' ? 4 : kind === 'float8' ? 8 : kind === 'xy' ? 16 : 0);
      if (kind === 'int4') b.writeInt32BE((v as number) | 0);
      else if (kind === 'float8') b.writeDoubleBE(num(v));
      else if (kind === 'xy') {
        b.writeDoubleBE(num((v as unknown[])[0]));
        b.writeDoubleBE(num((v as unknown[])[1]), 8);
      } else {
        const text = Buffer.from(typeof v === 'string' ? v : JSON.stringify(v), 'utf8');
        const len = Buffer.alloc(4);
        len.writeInt32BE(text.length);
        return void columns[i].push(len, text);
      }
      columns[i].push(b);
    });
    if (flags.includes(1)) {
      const at = Buffer.alloc(4);
      at.writeInt32BE(row + 1);
      nulls.push(at, flags);
    }
  });
  return { count: rows.length, columns: columns.map((c) => Buffer.concat(c)), nulls: Buffer.concat(nulls) };
}

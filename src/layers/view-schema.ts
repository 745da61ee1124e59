/**
 * A view layer's relation: a PostgreSQL view over the source layer's table with the view's columns and rows. Every
 * reader of a layer (queries, statistics, pbf, counts, extents, exports by COPY or GDAL) reads it as it reads a table,
 * so nothing of the source the view leaves out can reach them; the planner inlines it, so the filter and the caller's
 * where meet the source's indexes as one clause. It is a simple view, so edits through it reach the source, and its
 * check option refuses rows that would leave its filter.
 */
import { GEOMETRY_COLUMN, ident, LayerField } from './layer-schema';

/** How a view layer was defined, as stored in feature_view_layers.definition and echoed in adminLayerInfo. */
export interface ViewLayerDefinition {
  sourceServiceName: string;
  sourceLayerId: number;
  sourceLayerFields: { name: string; alias: string; source: string }[];
  /** The where clause as given; `whereSql` is what the view runs. */
  viewDefinitionQuery: string;
  /** The area of interest: rows whose shape intersects this envelope, in `wkid`. */
  filter?: {
    operator: 'esriSpatialRelIntersects';
    value: {
      geometryType: 'esriGeometryEnvelope';
      geometry: { xmin: number; ymin: number; xmax: number; ymax: number; spatialReference: { wkid: number } };
    };
  };
}

export interface ViewRelation {
  sourceSchema: string;
  sourceTable: string;
  /** The view's fields, whose columns are the source's. */
  fields: LayerField[];
  hasGeometry: boolean;
  /** The compiled viewDefinitionQuery with inline literals, or null for every row. */
  whereSql: string | null;
  filter: ViewLayerDefinition['filter'];
  /** The layer's spatial reference, which the envelope is projected to. */
  srid: number;
}

/** A number that can be written into SQL as it is. */
const num = (n: number) => {
  if (!Number.isFinite(n)) throw new Error('view filter: not a finite number');
  return String(n);
};

export function viewFilterSql(filter: NonNullable<ViewLayerDefinition['filter']>, srid: number): string {
  const { xmin, ymin, xmax, ymax, spatialReference } = filter.value.geometry;
  const envelope = `ST_MakeEnvelope(${num(xmin)}, ${num(ymin)}, ${num(xmax)}, ${num(ymax)}, ${num(Math.trunc(spatialReference.wkid))})`;
  const inLayer = Math.trunc(spatialReference.wkid) === srid ? envelope : `ST_Transform(${envelope}, ${num(srid)})`;
  return `ST_Intersects(${ident(GEOMETRY_COLUMN)}, ${inLayer})`;
}

/** CREATE VIEW for the layer `table` of the view service's schema. */
export function createViewSql(schema: string, table: string, r: ViewRelation): string {
  const cols = r.fields.map((f) => ident(f.column));
  if (r.hasGeometry) cols.push(ident(GEOMETRY_COLUMN));
  const where = [r.whereSql ? `(${r.whereSql})` : null, r.filter ? viewFilterSql(r.filter, r.srid) : null].filter(Boolean);
  return `CREATE VIEW ${ident(schema)}.${ident(table)} AS SELECT ${cols.join(', ')} FROM ${ident(r.sourceSchema)}.${ident(r.sourceTable)}${
    where.length ? ` WHERE ${where.join(' AND ')}` : ''
  } WITH CASCADED CHECK OPTION`;
}

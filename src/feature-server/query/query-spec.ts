/** What one query asks of a layer's table, as the query services hand it to the feature data repository and its SQL. */
import { SqlParams } from '../../core/database/sql-params';
import { LayerField } from '../../layers/layer-schema';
import { PbfTransform } from '../pbf/grid';

export interface QuerySpec {
  /** Boolean SQL from the where compiler; its parameters are already in `p`. */
  where: string;
  /** The columns `where` reads; undefined when not known (the page then assumes any). */
  whereColumns?: string[];
  /** How many of `p`'s values, the first ones, are the where clause's. */
  whereParams?: number;
  /** The where clause reads the clock, so the rows it selects change without any edit. */
  whereReadsClock?: boolean;
  p: SqlParams;
  objectIds?: number[];
  outFields: LayerField[];
  returnGeometry: boolean;
  outSrid: number;
  /** The wkid as the caller named it (102100 stays 102100 in replies; PostGIS computes with 3857). */
  outWkid: number;
  /** GeoJSON output keeps RFC 7946's counter-clockwise exteriors; ArcGIS JSON wants clockwise. */
  orientation: 'cw' | 'ccw';
  orderBy: { field: LayerField; desc: boolean }[];
  offset: number;
  limit: number;
  envelope?: { xmin: number; ymin: number; xmax: number; ymax: number; srid: number };
  /** maxAllowableOffset: generalization tolerance in the output spatial reference's units (lines and polygons). */
  generalize?: number;
  /** geometryPrecision: decimals of output coordinates, when fewer than the 15 replies carry. */
  decimals?: number;
  /** returnCentroid: each polygon's centroid next to its geometry. */
  centroid?: boolean;
  /** quantizationParameters: coordinates on this integer grid (f=json and f=pbf). */
  quantize?: PbfTransform;
}

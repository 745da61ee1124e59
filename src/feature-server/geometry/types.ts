import { GeometryType } from '../../layers/layer-schema';

/** Bounds on edit geometry (GEOMETRY_MAX_*): per geometry, and over all geometries of one request. */
export interface GeometryLimits {
  maxVertices: number;
  maxParts: number;
  maxRequestVertices: number;
}

/** One geometry-thread task: the JSON texts of an edit request's feature lists, parsed and converted off the event loop. */
export interface EditsTask {
  lists: { name: string; text: string | undefined }[];
  geometryType: GeometryType | null;
  limits: GeometryLimits;
  maxFeatures: number;
}

export type ParsedGeometry =
  | { kind: 'absent' }
  | { kind: 'null' }
  /** Base64 WKB for ST_GeomFromWKB, with the wkid the geometry named for itself, if any. */
  | { kind: 'ok'; wkb: string; wkid?: number }
  | { kind: 'error'; message: string };

export interface ParsedFeature {
  /** False when the entry is not a JSON object (reported per feature). */
  object: boolean;
  attributes: unknown;
  geometry: ParsedGeometry;
}

/** A whole-request refusal travels as data: worker code never throws HTTP errors, and errors lose their class on the way back. */
export type EditsTaskResult = { ok: true; lists: ParsedFeature[][] } | { ok: false; message: string; details: string[] };

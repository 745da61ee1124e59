/**
 * Esri's FeatureCollection protocol buffer (feature-collection.proto beside this file), encoded with protobufjs.
 *
 * Why protobufjs: it reads the .proto as it stands at start-up (no generated code to keep in step with the schema) and
 * compiles an encoder per message type on first use, which is the fastest of the maintained JavaScript encoders for
 * messages built from plain objects; @bufbuild/protobuf needs a code-generation step and encodes through reflection.
 */
import { join } from 'node:path';
import { loadSync, Type } from 'protobufjs';
import { FieldType, GeometryType } from '../../layers/layer-schema';

const root = loadSync(join(__dirname, 'feature-collection.proto'));
const featureCollection: Type = root.lookupType('esriPBuffer.FeatureCollectionPBuffer');

export const PBF_GEOMETRY_TYPE: Record<GeometryType, number> = {
  esriGeometryPoint: 0,
  esriGeometryMultipoint: 1,
  esriGeometryPolyline: 2,
  esriGeometryPolygon: 3,
};

export const PBF_FIELD_TYPE: Record<FieldType, number> = {
  esriFieldTypeSmallInteger: 0,
  esriFieldTypeInteger: 1,
  esriFieldTypeSingle: 2,
  esriFieldTypeDouble: 3,
  esriFieldTypeString: 4,
  esriFieldTypeDate: 5,
  esriFieldTypeOID: 6,
  esriFieldTypeGUID: 10,
  esriFieldTypeGlobalID: 11,
  esriFieldTypeBigInteger: 13,
};

/** sqlTypeOther, what the layer's JSON fields say too. */
export const SQL_TYPE_OTHER = 16;

/** One attribute: exactly one member, or none for null. */
export type PbfValue =
  | { stringValue: string }
  | { floatValue: number }
  | { doubleValue: number }
  | { sintValue: number }
  | { uintValue: number }
  | { sint64Value: number }
  | Record<string, never>;

export interface PbfGeometry {
  lengths: number[];
  coords: number[];
}

export interface PbfFeature {
  attributes: PbfValue[];
  geometry?: PbfGeometry;
  /** returnCentroid: a point on the same grid as the geometry. */
  centroid?: PbfGeometry;
}

/** How a client turns the integer coordinates back into the reply's spatial reference. */
export interface PbfTransform {
  originPosition: 'upperLeft' | 'lowerLeft';
  scale: number;
  xTranslate: number;
  yTranslate: number;
}

export interface PbfFeatureResult {
  objectIdFieldName: string;
  globalIdFieldName: string;
  geometryType?: GeometryType;
  spatialReference?: { wkid: number; latestWkid: number };
  exceededTransferLimit: boolean;
  transform?: PbfTransform;
  fields: { name: string; type: FieldType; alias: string }[];
  features: PbfFeature[];
}

function encode(queryResult: object): Buffer {
  const bytes = featureCollection.encode({ queryResult }).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function encodeFeatureResult(r: PbfFeatureResult): Buffer {
  const t = r.transform;
  return encode({
    featureResult: {
      objectIdFieldName: r.objectIdFieldName,
      uniqueIdField: { name: r.objectIdFieldName, isSystemMaintained: true },
      globalIdFieldName: r.globalIdFieldName,
      ...(r.geometryType ? { geometryType: PBF_GEOMETRY_TYPE[r.geometryType] } : {}),
      ...(r.spatialReference ? { spatialReference: { wkid: r.spatialReference.wkid, lastestWkid: r.spatialReference.latestWkid } } : {}),
      exceededTransferLimit: r.exceededTransferLimit,
      ...(t
        ? {
            transform: {
              quantizeOriginPostion: t.originPosition === 'upperLeft' ? 0 : 1,
              scale: { xScale: t.scale, yScale: t.scale },
              translate: { xTranslate: t.xTranslate, yTranslate: t.yTranslate },
            },
          }
        : {}),
      fields: r.fields.map((f) => ({ name: f.name, fieldType: PBF_FIELD_TYPE[f.type], alias: f.alias, sqlType: SQL_TYPE_OTHER })),
      features: r.features,
    },
  });
}

export function encodeCount(count: number): Buffer {
  return encode({ countResult: { count } });
}

export function encodeObjectIds(objectIdFieldName: string, objectIds: number[]): Buffer {
  return encode({ idsResult: { objectIdFieldName, objectIds } });
}

/** For tests and tools: the message as plain values (enums as names, 64-bit integers as numbers, zeros left out as on the wire). */
export function decodeFeatureCollection(bytes: Uint8Array): Record<string, unknown> {
  return featureCollection.toObject(featureCollection.decode(bytes), { enums: String, longs: Number });
}

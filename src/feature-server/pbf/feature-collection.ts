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
import { writeFeatures } from './feature-writer';
import { pageOfRows, PbfPage } from './page-columns';
import { PbfTransform } from './grid';
import { pbfFeatures } from './pbf-features';

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

export interface PbfFeatureResult {
  objectIdFieldName: string;
  globalIdFieldName: string;
  geometryType?: GeometryType;
  spatialReference?: { wkid: number; latestWkid: number };
  exceededTransferLimit: boolean;
  transform?: PbfTransform;
  fields: { name: string; type: FieldType; alias: string }[];
  /** The page as PostgreSQL sent it (page-columns.ts), with `rowGeometry` and `centroids`. */
  page?: PbfPage;
  /** Or its rows, as pbf-features.ts reads them (tests and tools; pageOfRows turns them into the page). */
  rows?: unknown[][];
  rowGeometry?: GeometryType;
  centroids?: boolean;
}

function encode(queryResult: object): Buffer {
  const bytes = featureCollection.encode({ queryResult }).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A varint's byte count. */
function varintSize(n: number): number {
  let size = 1;
  while (n > 127) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** The FeatureResult's features, written by feature-writer.ts, spliced after protobufjs's encoding of the rest. */
export function encodeFeatureResult(r: PbfFeatureResult): Buffer {
  const head = encodeFeatureResultHead(r);
  const page = r.page ?? pageOfRows(r.rows ?? [], r.fields, r.rowGeometry, r.centroids);
  const features = writeFeatures(page, r.fields, r.rowGeometry, r.centroids);
  // head is FeatureCollection.queryResult (tag 0x12, length) > QueryResult.featureResult (tag 0x0a, length) > fields.
  let at = 1;
  while (head[at++] & 128);
  at++;
  while (head[at++] & 128);
  const fields = head.subarray(at);
  const resultLen = fields.length + features.length;
  const queryLen = 1 + varintSize(resultLen) + resultLen;
  const out = Buffer.allocUnsafe(1 + varintSize(queryLen) + queryLen);
  let pos = 0;
  const varint = (n: number) => {
    while (n > 127) {
      out[pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    out[pos++] = n;
  };
  out[pos++] = 0x12;
  varint(queryLen);
  out[pos++] = 0x0a;
  varint(resultLen);
  pos += fields.copy(out, pos);
  features.copy(out, pos);
  return out;
}

function encodeFeatureResultHead(r: PbfFeatureResult): Buffer {
  return encode({ featureResult: featureResultMessage(r) });
}

/** protobufjs's encoding of the whole result, features included: the reference feature-writer.ts is tested against. */
export function encodeFeatureResultWithProtobufjs(r: PbfFeatureResult): Buffer {
  return encode({
    featureResult: { ...featureResultMessage(r), features: pbfFeatures(r.rows ?? [], r.fields, r.rowGeometry, r.centroids) },
  });
}

function featureResultMessage(r: PbfFeatureResult): object {
  const t = r.transform;
  return {
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
  };
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

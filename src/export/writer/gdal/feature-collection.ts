/**
 * ArcGIS Feature Collection JSON, which GDAL cannot write: GDAL writes each layer as GeoJSON (one feature per
 * line, in the target SR, dates already epoch ms from SQL) and this streams it line by line into the collection,
 * so memory stays bounded whatever the layer size.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { geoJsonToEsri, GeoJson } from '../../../layers/esri-geometry';
import { fieldInfo } from '../../../layers/layer-schema';
import { ResolvedSrs } from '../srs';
import { ExportLayerSource } from '../types';

export type EsriSpatialReference = { wkid: number } | { wkt: string };

/** The SR the features are written in: the target's, else the layer's own. */
export function esriSpatialReference(target: ResolvedSrs | null, layer: ExportLayerSource): EsriSpatialReference {
  if (!target) return { wkid: layer.srid };
  return target.wkid !== undefined ? { wkid: target.wkid } : { wkt: target.srs };
}

/** GeoJSON (GDAL writes RFC 7946 winding) → ArcGIS JSON geometry, rewound to ArcGIS's convention. */
export function toEsriGeometry(g: GeoJson | null | undefined): Record<string, unknown> | undefined {
  return g ? geoJsonToEsri(g, true) : undefined;
}

export function layerDefinition(layer: ExportLayerSource, withGeometry: boolean, sr: EsriSpatialReference) {
  const oid = layer.fields.find((f) => f.type === 'esriFieldTypeOID');
  return {
    name: layer.name,
    type: withGeometry ? 'Feature Layer' : 'Table',
    ...(withGeometry ? { geometryType: layer.geometryType, spatialReference: sr } : {}),
    objectIdField: oid?.name ?? null,
    fields: layer.fields.map(fieldInfo),
  };
}

/** A buffered write stream that respects backpressure. */
export class JsonSink {
  private stream: WriteStream;
  private chunks: string[] = [];
  private size = 0;

  constructor(path: string) {
    this.stream = createWriteStream(path, { encoding: 'utf8' });
  }

  async write(s: string): Promise<void> {
    this.chunks.push(s);
    this.size += s.length;
    if (this.size >= 1 << 16) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.chunks.length) return;
    const ok = this.stream.write(this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
    if (!ok) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }

  destroy(): void {
    this.stream.destroy();
  }
}

export interface AppendOptions {
  first: boolean;
  withGeometry: boolean;
  sr: EsriSpatialReference;
  signal?: AbortSignal;
  /** Called every `every` features with the count so far. */
  onFeatures?: (count: number) => void;
  every?: number;
}

/** Appends one layer ({layerDefinition, featureSet}) read from GDAL's GeoJSON; returns its feature count. */
export async function appendLayer(sink: JsonSink, geojsonPath: string, layer: ExportLayerSource, o: AppendOptions): Promise<number> {
  const def = layerDefinition(layer, o.withGeometry, o.sr);
  const set = o.withGeometry ? `"geometryType":${JSON.stringify(layer.geometryType)},"spatialReference":${JSON.stringify(o.sr)},` : '';
  await sink.write(`${o.first ? '' : ','}{"layerDefinition":${JSON.stringify(def)},"featureSet":{${set}"features":[`);
  const every = o.every ?? 10_000;
  let count = 0;
  const input = createReadStream(geojsonPath, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const raw of lines) {
      // GDAL's GeoJSON writer puts each feature on one line: `{ "type": "Feature", ... },` (strings escape newlines).
      if (!raw.startsWith('{ "type": "Feature"')) continue;
      const f = JSON.parse(raw.endsWith(',') ? raw.slice(0, -1) : raw) as {
        properties?: Record<string, unknown>;
        geometry?: GeoJson | null;
      };
      const geometry = o.withGeometry ? toEsriGeometry(f.geometry) : undefined;
      await sink.write(
        `${count ? ',' : ''}${JSON.stringify(geometry ? { attributes: f.properties ?? {}, geometry } : { attributes: f.properties ?? {} })}`,
      );
      if (++count % every === 0) {
        o.signal?.throwIfAborted();
        o.onFeatures?.(count);
      }
    }
  } finally {
    lines.close();
    input.destroy();
  }
  await sink.write(']}}');
  return count;
}

/** Both ends of the collection document. */
export const COLLECTION_HEAD = '{"layers":[';
export const COLLECTION_TAIL = ']}';

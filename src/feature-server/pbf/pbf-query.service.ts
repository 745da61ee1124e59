import { Injectable, StreamableFile } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FEATURE_DB } from '../../core/database/feature-database.module';
import { FeatureDataRepository } from '../feature-data.repository';
import { QuerySpec } from '../query/query-spec';
import { QueryDto } from '../feature-server.dto';
import { LayerRow } from '../../layers/types';
import { boolParam, invalidQuery } from '../query-params';
import { withCentroid } from '../query/geometry-sql';
import { encodeCount, encodeFeatureResult, encodeObjectIds } from './feature-collection';
import { defaultTransform } from './quantization';

export const PBF_CONTENT_TYPE = 'application/x-protobuf';

const EMPTY_PAGE = { count: 0, columns: [], nulls: null };

const reply = (bytes: Buffer) => new StreamableFile(bytes, { type: PBF_CONTENT_TYPE, length: bytes.length });

/**
 * Query replies with f=pbf: the same features, filters and paging as f=json, in Esri's FeatureCollection protocol
 * buffer. The query's checks (access, parameters, spatial references, quantizationParameters) are QueryService's; this
 * only reads and encodes.
 */
@Injectable()
export class PbfQueryService {
  private readonly geographic = new Map<number, boolean>();

  constructor(
    private readonly data: FeatureDataRepository,
    @InjectDataSource(FEATURE_DB) private readonly db: DataSource,
  ) {}

  /**
   * With `guard` (known-layers.ts; SQL, parameters in `spec.p`), the page is read only if it holds, and undefined is
   * answered when it did not: the caller then takes the usual way. `scope` lets a page in object id order start where
   * the caller's earlier page of the same selection ended (as f=json's do).
   */
  async query(
    schema: string,
    layer: LayerRow,
    spec: QuerySpec,
    p: QueryDto,
    only: { count: boolean; ids: boolean },
    guard?: string,
    scope?: string,
  ) {
    // The FeatureCollection buffer has no extent result.
    if (boolParam('returnExtentOnly', p.returnExtentOnly, false))
      throw invalidQuery("'returnExtentOnly' is answered in f=json, pjson or geojson.");
    if (only.count) return reply(encodeCount(await this.data.count(schema, layer, spec)));
    if (only.ids) return reply(encodeObjectIds(layer.object_id_field, await this.data.ids(schema, layer, spec)));
    const withGeometry = spec.returnGeometry && !!layer.geometry_type;
    const centroids = withCentroid(layer, spec);
    const transform = withGeometry || centroids ? (spec.quantize ?? defaultTransform(await this.isGeographic(spec.outSrid))) : undefined;
    const page = await this.data.featurePage(schema, layer, { ...spec, quantize: transform }, 'pbf', guard, scope);
    if (!page.ok) return undefined;
    const exceeded = page.rows > spec.limit;
    // As with f=json: returnExceededLimitFeatures=false (the SDK's tile queries) answers a selection larger than one
    // page with no features and the flag, so the client splits the tile instead of drawing part of it.
    const some = !exceeded || boolParam('returnExceededLimitFeatures', p.returnExceededLimitFeatures, true);
    const features = some
      ? { ...page.pbf!, pointGrid: withGeometry && layer.geometry_type === 'esriGeometryPoint' ? transform : undefined }
      : EMPTY_PAGE;
    return reply(
      encodeFeatureResult({
        objectIdFieldName: layer.object_id_field,
        globalIdFieldName: layer.fields.find((f) => f.type === 'esriFieldTypeGlobalID')?.name ?? '',
        ...(layer.geometry_type
          ? { geometryType: layer.geometry_type, spatialReference: { wkid: spec.outWkid, latestWkid: spec.outSrid } }
          : {}),
        exceededTransferLimit: exceeded,
        transform,
        fields: spec.outFields,
        page: features,
        rowGeometry: withGeometry ? layer.geometry_type! : undefined,
        centroids,
      }),
    );
  }

  /** Whether coordinates in `srid` are degrees, which sets the default grid (see defaultTransform). */
  private async isGeographic(srid: number): Promise<boolean> {
    let geo = this.geographic.get(srid);
    if (geo === undefined) {
      const rows = await this.db.query<{ geo: boolean }[]>(
        `SELECT proj4text LIKE '%+proj=longlat%' AS geo FROM spatial_ref_sys WHERE srid = $1`,
        [srid],
      );
      geo = rows[0]?.geo ?? false;
      this.geographic.set(srid, geo);
    }
    return geo;
  }
}

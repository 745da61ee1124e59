/**
 * The query parameters that say how returned geometries are written: maxAllowableOffset, geometryPrecision,
 * returnCentroid and quantizationParameters. The ArcGIS Maps SDK sends them when it draws a layer (returnCentroid on
 * every polygon tile, maxAllowableOffset on line tiles, quantizationParameters on all), and other clients send them
 * blank; answering features without them would be a wrong answer, so what cannot be honoured is refused.
 */
import { QuerySpec } from './query-spec';
import { QueryDto } from '../feature-server.dto';
import { LayerRow } from '../../layers/types';
import { quantizationTransform } from '../pbf/quantization';
import { boolParam, intParam, invalidQuery } from '../query-params';

/** Replies carry 15 decimals at most; asking for as many or more changes nothing. */
const MAX_DECIMALS = 15;

/** A finite number of at least 0; undefined when blank. */
function offsetParam(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = raw.trim();
  const n = /^[+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw invalidQuery(`'${name}' must be a number of at least 0, in the units of the output spatial reference.`);
  return n;
}

export type GeometryOutput = Pick<QuerySpec, 'generalize' | 'decimals' | 'centroid' | 'quantize'>;

/**
 * @param format the reply's format: f=json and pjson write every option; f=pbf's coordinates are grid integers, so
 *               geometryPrecision changes nothing there; GeoJSON has no member for a centroid or a transform.
 * @param outSrid the reply's spatial reference, which the quantization extent must be in
 */
export function geometryOutput(layer: LayerRow, p: QueryDto, format: 'json' | 'geojson' | 'pbf', outSrid: number): GeometryOutput {
  // 0 is ArcGIS's "no generalization".
  const generalize = offsetParam('maxAllowableOffset', p.maxAllowableOffset) || undefined;
  const precision = intParam('geometryPrecision', p.geometryPrecision, 0, 1000);
  const quantize = quantizationTransform(p.quantizationParameters, outSrid);
  const centroid = boolParam('returnCentroid', p.returnCentroid, false);
  if (format === 'geojson' && quantize) throw invalidQuery("'quantizationParameters' is answered in f=json, pjson or pbf.");
  if (centroid && format === 'geojson') throw invalidQuery("'returnCentroid' is answered in f=json, pjson or pbf.");
  if (centroid && layer.geometry_type !== 'esriGeometryPolygon')
    throw invalidQuery("'returnCentroid' is supported on polygon layers only.");
  return {
    generalize,
    // Grid coordinates are whole numbers whatever the precision.
    decimals: precision !== undefined && precision < MAX_DECIMALS && !quantize && format !== 'pbf' ? precision : undefined,
    centroid,
    quantize: layer.geometry_type ? quantize : undefined,
  };
}

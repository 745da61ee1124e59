import { FORMATS } from './formats';
import { ExportFormat, ExportLayerSource } from './types';

/** A resolved target SR: what GDAL/PROJ read ('EPSG:3857', 'ESRI:102003' or WKT) and its wkid when it has one. */
export interface ResolvedSrs {
  srs: string;
  wkid?: number;
}

export const WGS84: ResolvedSrs = { srs: 'EPSG:4326', wkid: 4326 };

/** The SR a layer is written in, or null to keep the layer's own (no reprojection at all). */
export function layerTargetSrs(format: ExportFormat, target: ResolvedSrs | null, layer: ExportLayerSource): ResolvedSrs | null {
  const t = FORMATS[format].forcedSrs ? WGS84 : target;
  return !t || t.wkid === layer.srid ? null : t;
}

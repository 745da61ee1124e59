import { LayerField } from '../../../src/layers/layer-schema';
import { ExportLayerSource } from '../../../src/export/writer';

export const field = (name: string, type: LayerField['type'], length?: number): LayerField => ({
  name,
  type,
  alias: name,
  column: name.toLowerCase(),
  nullable: type !== 'esriFieldTypeOID',
  editable: type !== 'esriFieldTypeOID',
  ...(length !== undefined ? { length } : {}),
});

/** A point layer as the features module stores it: OID, text, int, double, date and a long field name. */
export function pointLayer(over: Partial<ExportLayerSource> = {}): ExportLayerSource {
  return {
    id: 0,
    name: 'Cities',
    schema: 'svc_abc',
    table: 'l0',
    srid: 4326,
    geometryType: 'esriGeometryPoint',
    where: '1=1',
    includeGeometry: true,
    fields: [
      field('OBJECTID', 'esriFieldTypeOID'),
      field('Name', 'esriFieldTypeString', 50),
      field('Pop', 'esriFieldTypeInteger'),
      field('Founded', 'esriFieldTypeDate'),
    ],
    ...over,
  };
}

export function polygonLayer(over: Partial<ExportLayerSource> = {}): ExportLayerSource {
  return {
    id: 1,
    name: 'Parcels',
    schema: 'svc_abc',
    table: 'l1',
    srid: 4326,
    geometryType: 'esriGeometryPolygon',
    where: '1=1',
    includeGeometry: true,
    fields: [field('OBJECTID', 'esriFieldTypeOID'), field('Label', 'esriFieldTypeString', 20)],
    ...over,
  };
}

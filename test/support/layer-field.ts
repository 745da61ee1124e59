import { ExportLayerSource } from '../../src/export/writer';
import { LayerField } from '../../src/layers/layer-schema';

/** A nullable, editable field whose column is its name in lower case, as the export tests' tables are made. */
export const layerField = (name: string, type: LayerField['type'], length?: number): LayerField => ({
  name,
  type,
  alias: name,
  column: name.toLowerCase(),
  nullable: true,
  editable: true,
  ...(length ? { length } : {}),
});

/** A WGS84 layer of `schema.table` as the export writer is given it: every row, with its geometry, named after its table. */
export const exportLayer = (
  schema: string,
  table: string,
  geometryType: ExportLayerSource['geometryType'],
  fields: LayerField[],
  over: Partial<ExportLayerSource> = {},
): ExportLayerSource => ({
  id: 0,
  name: table,
  schema,
  table,
  srid: 4326,
  geometryType,
  where: '1=1',
  includeGeometry: true,
  fields,
  ...over,
});

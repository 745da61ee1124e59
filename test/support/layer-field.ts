import type { LayerField } from '../../src/features/layer-schema';

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

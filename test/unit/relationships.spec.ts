/** The relationship rules (src/layers/relationships.ts) and the definition changes that keep them (definition-change.ts). */
import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { deleteFromLayer, deleteLayers } from '../../src/layers/definition-change';
import { LayerField, LayerRelationship } from '../../src/layers/layer-schema';
import {
  cascades,
  checkRelationships,
  parseRelationships,
  relatedLayerIds,
  serviceRelationships,
  workingRelationships,
} from '../../src/layers/relationships';
import { LayerRow } from '../../src/layers/types';
import { layerField } from '../support/layer-field';

const field = (name: string, type: LayerField['type']) => layerField(name, type);
const side = (id: number, relatedTableId: number, role: LayerRelationship['role'], keyField: string): LayerRelationship => ({
  id,
  name: `r${id}`,
  relatedTableId,
  cardinality: 'esriRelCardinalityOneToMany',
  role,
  keyField,
  composite: false,
});
function layer(
  id: number,
  relationships: LayerRelationship[],
  fields = [field('OBJECTID', 'esriFieldTypeOID'), field('Ref', 'esriFieldTypeInteger')],
): LayerRow {
  return {
    service_item_id: 's',
    layer_id: id,
    name: `L${id}`,
    kind: 'Table',
    geometry_type: null,
    srid: 4326,
    table_name: `l${id}`,
    object_id_field: 'OBJECTID',
    display_field: null,
    has_attachments: false,
    fields,
    relationships,
  };
}

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ArcgisError) return e.details.join(' ');
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('relationships', () => {
  const origin = layer(0, [side(0, 1, 'esriRelRoleOrigin', 'OBJECTID')]);
  const destination = layer(1, [side(0, 0, 'esriRelRoleDestination', 'Ref')]);

  it('lists a relationship once both sides are declared, and the service pair from the origin', () => {
    expect(workingRelationships([origin, layer(1, [])], origin)).toEqual([]);
    expect(workingRelationships([origin, destination], origin)).toEqual(origin.relationships);
    expect(serviceRelationships([origin, destination])).toEqual([
      expect.objectContaining({ id: 0, originLayerId: 0, destinationLayerId: 1, originPrimaryKey: 'OBJECTID', originForeignKey: 'Ref' }),
    ]);
    expect(relatedLayerIds([0], [origin, destination, layer(2, [])])).toEqual([1]);
    expect(relatedLayerIds([0, 1], [origin, destination])).toEqual([]);
  });

  it('resolves key fields case-insensitively and stores their names', () => {
    const [r] = parseRelationships([{ ...side(3, 1, 'esriRelRoleOrigin', 'objectid') }], 'L0', origin.fields);
    expect(r.keyField).toBe('OBJECTID');
  });

  it('refuses sides that disagree', () => {
    expect(refusal(() => checkRelationships([origin, layer(1, [side(0, 0, 'esriRelRoleOrigin', 'Ref')])]))).toContain('one side must be');
    const text = layer(
      1,
      [side(0, 0, 'esriRelRoleDestination', 'Ref')],
      [field('OBJECTID', 'esriFieldTypeOID'), field('Ref', 'esriFieldTypeString')],
    );
    expect(refusal(() => checkRelationships([origin, text]))).toContain('hold different kinds of values');
    const third = layer(2, [side(0, 0, 'esriRelRoleDestination', 'Ref')]);
    expect(refusal(() => checkRelationships([origin, destination, third]))).toContain('more than one pair');
  });

  it('removes both sides when a relationship or a layer goes, and keeps key fields', () => {
    const change = deleteFromLayer([origin, destination], destination, { relationships: [{ id: 0 }] });
    expect(change.layers!.map((c) => [c.layer.layer_id, c.layer.relationships])).toEqual([
      [1, []],
      [0, []],
    ]);
    expect(deleteLayers([origin, destination], [1])).toEqual({ layers: [{ layer: { ...origin, relationships: [] } }], deleteLayers: [1] });
    expect(refusal(() => deleteFromLayer([origin, destination], destination, { fields: [{ name: 'ref' }] }))).toContain(
      'key of a relationship',
    );
  });

  it('gives a composite relationship its cascade, on the key columns, once both sides say composite', () => {
    const o = layer(0, [{ ...side(0, 1, 'esriRelRoleOrigin', 'OBJECTID'), composite: true }]);
    const d = layer(1, [{ ...side(0, 0, 'esriRelRoleDestination', 'Ref'), composite: true }]);
    expect(cascades([o, d]).map((c) => [c.origin.layer_id, c.destination.layer_id, c.originKey, c.destinationKey])).toEqual([
      [0, 1, 'objectid', 'ref'],
    ]);
    expect(cascades([origin, destination])).toEqual([]);
    expect(refusal(() => checkRelationships([o, destination]))).toContain("same 'composite'");
  });
});

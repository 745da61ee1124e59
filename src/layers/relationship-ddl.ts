/**
 * The triggers that carry out composite relationships (relationships.ts `cascades`): one statement-level trigger per
 * relationship on the origin's table, running delete_related_features (migration LayerAdmin1732490000000) over the
 * deleted rows. Names and arguments come from the validated definition.
 */
import { ident } from './layer-schema';
import { cascades } from './relationships';

export type Cascade = ReturnType<typeof cascades>[number];

/** Every cascade trigger's name starts so; the service's are dropped and made again together. */
export const CASCADE_TRIGGER = 'feature_rel_';

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A cascade's identity: the same text means the same trigger. */
export const cascadeKey = (c: Cascade) =>
  JSON.stringify([c.id, c.origin.table_name, c.originKey, c.destination.table_name, c.destinationKey]);

export function cascadeTriggerSql(schema: string, c: Cascade): string {
  const args = [schema, c.destination.table_name, c.destinationKey, c.originKey].map(literal).join(', ');
  return `CREATE TRIGGER ${ident(`${CASCADE_TRIGGER}${c.id}_cascade`)} AFTER DELETE ON ${ident(schema)}.${ident(c.origin.table_name)}
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_related_features(${args})`;
}

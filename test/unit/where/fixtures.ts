import { ArcgisError } from '../../../src/core/errors/arcgis-error';
import { WhereField, WhereNode } from '../../../src/where/compile';

/** One field of every kind, plus awkward names: a quote inside, and a keyword ("DATE"). */
export const FIELDS: WhereField[] = [
  { name: 'OBJECTID', type: 'esriFieldTypeOID', column: 'objectid' },
  { name: 'NAME', type: 'esriFieldTypeString', column: 'name' },
  { name: 'POP', type: 'esriFieldTypeInteger', column: 'pop' },
  { name: 'SMALL', type: 'esriFieldTypeSmallInteger', column: 'small' },
  { name: 'BIG', type: 'esriFieldTypeBigInteger', column: 'big' },
  { name: 'RATIO', type: 'esriFieldTypeDouble', column: 'ratio' },
  { name: 'SINGLE', type: 'esriFieldTypeSingle', column: 'single' },
  { name: 'CREATED', type: 'esriFieldTypeDate', column: 'created' },
  { name: 'GLOBALID', type: 'esriFieldTypeGlobalID', column: 'globalid' },
  { name: 'OWNER_GUID', type: 'esriFieldTypeGUID', column: 'owner_guid' },
  { name: 'Odd "Name"', type: 'esriFieldTypeString', column: 'odd "col"' },
  { name: 'DATE', type: 'esriFieldTypeString', column: 'date_text' },
];

export const WHERE_MESSAGE = 'Cannot perform query. Invalid query parameters.';

/** Runs `fn`, expecting the where-clause 400; returns the error for further checks. */
export function rejection(fn: () => unknown): ArcgisError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ArcgisError) {
      expect(e.code).toBe(400);
      expect(e.message).toBe(WHERE_MESSAGE);
      expect(e.details).toHaveLength(1);
      return e;
    }
    throw e;
  }
  throw new Error('expected the clause to be rejected');
}

/** The tree without positions and checker annotations, for structural comparisons. */
export function bare(n: unknown): unknown {
  if (Array.isArray(n)) return n.map(bare);
  if (!n || typeof n !== 'object') return n;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n)) if (k !== 'pos' && k !== 'type' && k !== 'field') out[k] = bare(v);
  return out;
}

export type { WhereNode };

/**
 * The attribute columns of a layer written as CSV or Excel, in one place: the export request is checked with them
 * when it arrives, and the writer writes them. By default one column per field, headed by its name; with
 * `useFieldAliases` headed by its alias; a field with coded values (a `codedValue` domain) writes, as
 * `useDomainDescriptions` asks, its code (default), the code's description, or both: the code, then the
 * description in a column named `<header>_desc`.
 */
import { codedValues } from '../layers/field-domain';
import { LayerField } from '../layers/layer-schema';

export const DOMAIN_VALUES = ['code', 'description', 'both'] as const;
export type DomainValues = (typeof DOMAIN_VALUES)[number];

export interface ColumnOptions {
  domainValues?: DomainValues;
  fieldAliases?: boolean;
}

/** One column: the field it comes from, and whether it holds the field's value or its code's description. */
export interface AttributeColumn {
  header: string;
  field: LayerField;
  value: 'code' | 'description';
}

/** Headers two columns share (regardless of case, as spreadsheets and GDAL match them); the message says which. */
export class ColumnsError extends Error {
  override name = 'ColumnsError';
}

export const DESCRIPTION_SUFFIX = '_desc';

export function attributeColumns(fields: LayerField[], o: ColumnOptions): AttributeColumn[] {
  const mode = o.domainValues ?? 'code';
  const out: AttributeColumn[] = [];
  for (const field of fields) {
    const header = o.fieldAliases ? field.alias || field.name : field.name;
    const coded = mode !== 'code' && codedValues(field.domain) !== null;
    if (!coded || mode === 'both') out.push({ header, field, value: 'code' });
    if (coded && mode === 'description') out.push({ header, field, value: 'description' });
    if (coded && mode === 'both') out.push({ header: `${header}${DESCRIPTION_SUFFIX}`, field, value: 'description' });
  }
  const seen = new Map<string, string>();
  for (const c of out) {
    const key = c.header.toLowerCase();
    if (seen.has(key))
      throw new ColumnsError(`the columns of fields '${seen.get(key)}' and '${c.field.name}' would both be headed '${c.header}'.`);
    seen.set(key, c.field.name);
  }
  return out;
}

/** Whether the columns are the plain ones (each field's value under its name): what the formats' fast paths write. */
export const plainColumns = (o: ColumnOptions) => (o.domainValues ?? 'code') === 'code' && !o.fieldAliases;

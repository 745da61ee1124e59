/**
 * The rule for the x/y column names of a point layer written as CSV or Excel, in one place: the export request is
 * checked with it when it arrives and the writer applies it again to what it writes.
 */
export const DEFAULT_XY: readonly [string, string] = ['x', 'y'];

/** A plain identifier: it reads back unchanged in every spreadsheet and GIS, and needs no quoting in SQL. */
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** x/y column names that break the rule; the message names the parameter and says what to change. */
export class XyColumnsError extends Error {
  override name = 'XyColumnsError';
}

/** The names to write (trimmed, defaults filled in); throws XyColumnsError when they break the rule. */
export function xyColumnNames(fieldNames: readonly string[], xColumnName?: string, yColumnName?: string): [string, string] {
  const x = xColumnName?.trim() || DEFAULT_XY[0];
  const y = yColumnName?.trim() || DEFAULT_XY[1];
  for (const [k, v] of [
    ['xColumnName', x],
    ['yColumnName', y],
  ] as const) {
    if (!COLUMN.test(v)) throw new XyColumnsError(`${k} must be a column name of letters, digits and '_' (at most 63), not a digit first.`);
    if (fieldNames.some((f) => f.toLowerCase() === v.toLowerCase()))
      throw new XyColumnsError(`${k} '${v}' clashes with a field of the layer; choose another name.`);
  }
  if (x.toLowerCase() === y.toLowerCase()) throw new XyColumnsError(`xColumnName and yColumnName must differ (both are '${x}').`);
  return [x, y];
}

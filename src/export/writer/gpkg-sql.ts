/** SQL on a GeoPackage or SQLite file through GDAL (gdal-async has no statement parameters: names and text are quoted). */
import type * as gdal from 'gdal-async';

export const quoteId = (s: string) => `"${s.replace(/"/g, '""')}"`;
export const quoteText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * GDAL's SQLite ExecuteSQL returns no layer for a statement without result columns, and gdal-async turns that into
 * an Error whose message is GDAL's last error: empty when the statement succeeded.
 */
export async function exec(ds: gdal.Dataset, sql: string): Promise<void> {
  try {
    await ds.executeSQLAsync(sql);
  } catch (e) {
    // Not `instanceof Error`: the addon's errors may come from another realm (as under jest).
    if ((e as { message?: unknown } | null)?.message === '') return;
    throw e;
  }
}

/** The rows of a query, as GDAL reads them. The result sets are released when the dataset closes. */
export async function rows(ds: gdal.Dataset, sql: string): Promise<Record<string, unknown>[]> {
  const rs = await ds.executeSQLAsync(sql);
  const out: Record<string, unknown>[] = [];
  for (let f = await rs.features.firstAsync(); f; f = await rs.features.nextAsync()) out.push(f.fields.toObject());
  return out;
}

export const row = async (ds: gdal.Dataset, sql: string) => (await rows(ds, sql))[0] as Record<string, unknown> | undefined;

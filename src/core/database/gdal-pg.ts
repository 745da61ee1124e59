import type { ClientConfig } from 'pg';

/** DATABASE_URL as a GDAL PostgreSQL connection string ("PG:host=... dbname=..."), values quoted for libpq. */
export function gdalPgConnection(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const q = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const parts = [`host=${q(u.hostname)}`, `port=${q(u.port || '5432')}`, `dbname=${q(decodeURIComponent(u.pathname.slice(1)))}`];
  if (u.username) parts.push(`user=${q(decodeURIComponent(u.username))}`);
  if (u.password) parts.push(`password=${q(decodeURIComponent(u.password))}`);
  return `PG:${parts.join(' ')}`;
}

/**
 * The database a job writes to or reads from: a postgres:// URL (DATABASE_URL), or a GDAL "PG:host=... dbname=..."
 * string (gdalPgConnection, possibly with GDAL's own keywords); one of the two is required.
 */
export interface PgTarget {
  databaseUrl?: string;
  pg?: string;
}

/** One database as node-postgres's settings and as GDAL's PostgreSQL connection string. */
export interface PgConnection {
  client: ClientConfig;
  gdal: string;
}

/** The target's node-postgres settings and GDAL PG: string, from either form, so node-postgres sessions and GDAL's meet in one database. */
export function connectionOf(target: PgTarget): PgConnection {
  if (target.databaseUrl) return { client: { connectionString: target.databaseUrl }, gdal: gdalPgConnection(target.databaseUrl) };
  if (!target.pg || !/^PG:/i.test(target.pg.trim())) throw new Error('A database connection needs databaseUrl or a PG: connection string.');
  const kv = parseConninfo(target.pg.trim().slice(3));
  const client: ClientConfig = {};
  if (kv.host !== undefined) client.host = kv.host;
  if (kv.hostaddr !== undefined && kv.host === undefined) client.host = kv.hostaddr;
  if (kv.port !== undefined) client.port = Number(kv.port);
  if (kv.dbname !== undefined) client.database = kv.dbname;
  if (kv.user !== undefined) client.user = kv.user;
  if (kv.password !== undefined) client.password = kv.password;
  // GDAL's own keywords (tables=, schemas=...) are not libpq's; the callers add their own.
  const gdal = target.pg.trim().replace(/\s(tables|schemas|active_schema)=('(?:[^'\\]|\\.)*'|\S*)/gi, '');
  return { client, gdal };
}

/** libpq keyword/value connection string (key=value, values optionally single-quoted with backslash escapes). */
function parseConninfo(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
    if (re.lastIndex >= s.length) break;
  }
  return out;
}

/** DATABASE_URL as a GDAL PostgreSQL connection string ("PG:host=... dbname=..."), values quoted for libpq. */
export function gdalPgConnection(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const q = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const parts = [`host=${q(u.hostname)}`, `port=${q(u.port || '5432')}`, `dbname=${q(decodeURIComponent(u.pathname.slice(1)))}`];
  if (u.username) parts.push(`user=${q(decodeURIComponent(u.username))}`);
  if (u.password) parts.push(`password=${q(decodeURIComponent(u.password))}`);
  return `PG:${parts.join(' ')}`;
}

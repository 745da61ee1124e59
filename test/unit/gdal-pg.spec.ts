import { connectionOf, gdalPgConnection } from '../../src/core/database/gdal-pg';

describe('connection strings', () => {
  it('parses libpq keyword/value strings, quoted or not', () => {
    expect(connectionOf({ pg: `PG:host='db' port='5433' dbname='my db' user=me password='it\\'s \\\\secret'` }).client).toEqual({
      host: 'db',
      port: 5433,
      database: 'my db',
      user: 'me',
      password: "it's \\secret",
    });
  });
  it('turns a GDAL PG: string into node-pg settings and drops GDAL-only keywords', () => {
    const c = connectionOf({ pg: `PG:host='h' port='1' dbname='d' user='u' password='p' tables=a.b` });
    expect(c.client).toEqual({ host: 'h', port: 1, database: 'd', user: 'u', password: 'p' });
    expect(c.gdal).toBe(`PG:host='h' port='1' dbname='d' user='u' password='p'`);
    expect(connectionOf({ databaseUrl: 'postgres://u:p@h:1/d' }).gdal).toBe(`PG:host='h' port='1' dbname='d' user='u' password='p'`);
    expect(() => connectionOf({})).toThrow(/databaseUrl/);
  });
  it('reads back what gdalPgConnection writes', () => {
    const url = `postgres://${encodeURIComponent("o'brien")}:${encodeURIComponent('p\\w d')}@db.example:6543/${encodeURIComponent('my db')}`;
    expect(connectionOf({ pg: gdalPgConnection(url) }).client).toEqual({
      host: 'db.example',
      port: 6543,
      database: 'my db',
      user: "o'brien",
      password: 'p\\w d',
    });
  });
});

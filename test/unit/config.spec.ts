import { ConfigError, loadConfig } from '../../src/core/config/env';

describe('loadConfig', () => {
  it('applies defaults and derives the REST base from CONTEXT_PATH', () => {
    const c = loadConfig({ CONTEXT_PATH: '/portal' });
    expect(c.restBase).toBe('/portal/sharing/rest');
    expect(c.port).toBe(3000);
    expect(c.publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://gis.example.org/' }).publicUrl).toBe('https://gis.example.org');
    expect(c.limits).toMatchObject({ shareMaxItems: 1000, shareMaxGroups: 100 });
    expect(loadConfig({}).restBase).toBe('/sharing/rest');
  });

  it('keeps a per-client share below its pool: refused when set so, cut to fit when left to its default', () => {
    expect(() => loadConfig({ QUERY_POOL_SIZE: '3', QUERY_CLIENT_SHARE: '3' })).toThrow(
      /QUERY_CLIENT_SHARE must be less than QUERY_POOL_SIZE/,
    );
    expect(() => loadConfig({ SEARCH_POOL_SIZE: '2', SEARCH_CLIENT_SHARE: '2' })).toThrow(/SEARCH_CLIENT_SHARE must be less than/);
    expect(loadConfig({ QUERY_POOL_SIZE: '2' }).query).toMatchObject({ poolSize: 2, clientShare: 1 });
    expect(loadConfig({}).search).toEqual({ poolSize: 4, clientShare: 1, timeoutMs: 10000 });
    expect(loadConfig({}).auth).toEqual({ poolSize: 4 });
    expect(() => loadConfig({ AUTH_POOL_SIZE: '1' })).toThrow(/AUTH_POOL_SIZE/);
  });

  it('reads TRUST_PROXY as Express takes it: hops as a number, false, or a list', () => {
    expect(loadConfig({}).http.trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).http.trustProxy).toBe('loopback, 10.0.0.0/8');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ CONTEXT_PATH: 'portal/' }, 'CONTEXT_PATH'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SHARE_MAX_ITEMS: '0' }, 'SHARE_MAX_ITEMS'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ ADMIN_USERNAME: 'root' }, 'ADMIN_USERNAME and ADMIN_PASSWORD'],
    [{ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loopback; rm' }, 'TRUST_PROXY'],
  ])('rejects %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});

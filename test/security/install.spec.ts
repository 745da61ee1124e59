import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/env';
import { assertGdalDrivers, GdalInstallError, missingGdalDrivers } from '../../src/core/gdal-drivers';
import { requiredGdalDrivers } from '../../src/gdal-check';
import { spawnWorker } from '../support/worker';

/** The worker must not start on a GDAL that lacks a driver exports or publishing use (gdal-async's bundled build). */
describe('GDAL driver check at worker start-up', () => {
  it('asks for every driver the export formats and the publish readers name', () => {
    const names = requiredGdalDrivers().map((n) => n.name);
    for (const n of [
      'PostgreSQL',
      'XLSX',
      'ESRI Shapefile',
      'GPKG',
      'CSV',
      'GeoJSON',
      'OpenFileGDB',
      'KML',
      'FlatGeobuf',
      'SQLite',
      'OGR_VRT',
    ]) {
      expect(names).toContain(n);
    }
    expect(requiredGdalDrivers().find((n) => n.name === 'SQLite')).toMatchObject({ write: true, creationOption: 'SPATIALITE' });
    expect(requiredGdalDrivers().find((n) => n.name === 'PostgreSQL')).toMatchObject({ write: true });
  });

  it('finds all of them in the GDAL this process links (the system GDAL 3.6)', () => {
    expect(missingGdalDrivers(requiredGdalDrivers())).toEqual([]);
    expect(() => assertGdalDrivers(requiredGdalDrivers())).not.toThrow();
  });

  it('refuses a driver that is absent, one that cannot write and a creation option the driver lacks', () => {
    const needs = [
      { name: 'NoSuchDriver', write: false },
      { name: 'OGR_VRT', write: true },
      { name: 'CSV', write: true, creationOption: 'SPATIALITE' },
      { name: 'GeoJSON', write: true },
    ];
    expect(missingGdalDrivers(needs)).toEqual([
      'NoSuchDriver (driver absent)',
      'OGR_VRT (cannot write)',
      'CSV (no SPATIALITE creation option)',
    ]);
    expect(() => assertGdalDrivers(needs)).toThrow(GdalInstallError);
    expect(() => assertGdalDrivers(needs)).toThrow(/NoSuchDriver[\s\S]*GYP_DEFINES=shared_gdal=true/);
  });

  it('the install check scripts/setup.sh and the Dockerfile run passes here and fails the install on a GDAL lacking XLSX', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/gdal-check.ts'], {
        cwd: path.resolve(__dirname, '../..'),
        env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: 'tsconfig.json', ...env },
        encoding: 'utf8',
        timeout: 60000,
      });
    const ok = run({});
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/every driver the worker needs is present/);
    const bad = run({ GDAL_SKIP: 'XLSX' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/- XLSX \(driver absent\)/);
    expect(bad.stderr).not.toMatch(/ {4}at /);
  });

  it('a worker whose GDAL lacks XLSX and PostgreSQL exits non-zero naming them, before connecting anywhere', async () => {
    // GDAL_SKIP unregisters drivers at start-up: the same GDAL as the one a bundled build would give, minus them.
    // The database URL points nowhere, so reaching "worker started" (or hanging on a connection) fails the test.
    const config = loadConfig({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      REDIS_URL: 'redis://127.0.0.1:1',
      DATA_DIR: '/tmp/never',
    });
    const w = spawnWorker(config, { GDAL_SKIP: 'XLSX,PostgreSQL' });
    const code = await w.exited;
    expect(code).not.toBe(0);
    expect(w.output()).toMatch(/lacks what exports and publishing need/);
    expect(w.output()).toMatch(/- PostgreSQL \(driver absent\)/);
    expect(w.output()).toMatch(/- XLSX \(driver absent\)/);
    expect(w.output()).not.toMatch(/worker started|ECONNREFUSED| {4}at /);
  });
});

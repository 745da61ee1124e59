import * as gdal from 'gdal-async';
import { FORMATS } from '../export/writer/formats';
import { PUBLISH_DRIVERS } from '../features/publish/source';

/** A GDAL driver the worker uses, and whether it writes with it (export targets, the PostgreSQL publish target). */
export interface DriverNeed {
  name: string;
  write: boolean;
  /** A creation option the code passes (SQLite's SPATIALITE=YES needs GDAL built with SpatiaLite). */
  creationOption?: string;
}

/**
 * Derived from the export formats and the publish readers, so a format added there is checked here without a second
 * list to keep in step. gdal-async's bundled GDAL (what a plain `npm ci` builds or downloads) lacks PostgreSQL and
 * XLSX: this is what catches an install that did not link the system GDAL.
 */
export function requiredGdalDrivers(): DriverNeed[] {
  const needs = new Map<string, DriverNeed>();
  const add = (need: DriverNeed) => {
    const known = needs.get(need.name);
    needs.set(need.name, { ...known, ...need, write: need.write || !!known?.write, creationOption: need.creationOption ?? known?.creationOption });
  };
  add({ name: 'PostgreSQL', write: true });
  add({ name: 'OGR_VRT', write: false });
  for (const spec of Object.values(FORMATS)) {
    add({ name: spec.driver, write: true });
    for (const opt of spec.dsco) add({ name: spec.driver, write: true, creationOption: opt.split('=')[0] });
  }
  for (const name of Object.values(PUBLISH_DRIVERS)) add({ name, write: false });
  return [...needs.values()];
}

/** What is missing from this process's GDAL, one readable line per need; empty when everything is there. */
export function missingGdalDrivers(needs: DriverNeed[] = requiredGdalDrivers()): string[] {
  const missing: string[] = [];
  for (const need of needs) {
    let driver: gdal.Driver | undefined;
    try {
      driver = gdal.drivers.get(need.name) ?? undefined;
    } catch {
      driver = undefined; // gdal-async throws for an unknown name in some versions, returns null in others
    }
    if (!driver) {
      missing.push(`${need.name} (driver absent)`);
      continue;
    }
    const meta = driver.getMetadata() as Record<string, string | undefined>;
    if (meta.DCAP_VECTOR !== 'YES') missing.push(`${need.name} (no vector support)`);
    else if (need.write && meta.DCAP_CREATE !== 'YES') missing.push(`${need.name} (cannot write)`);
    else if (need.creationOption && !new RegExp(`name=['"]${need.creationOption}['"]`, 'i').test(meta.DMD_CREATIONOPTIONLIST ?? '')) {
      missing.push(`${need.name} (no ${need.creationOption} creation option)`);
    }
  }
  return missing;
}

/** An install fault the operator fixes: printed as its message alone, like a configuration error. */
export class GdalInstallError extends Error {}

/** Throws a message naming every missing driver and how to fix the install; the worker calls it before anything else. */
export function assertGdalDrivers(needs?: DriverNeed[]): void {
  const missing = missingGdalDrivers(needs);
  if (!missing.length) return;
  throw new GdalInstallError(
    [
      `GDAL ${gdal.version}${gdal.bundled ? ' (the copy bundled with gdal-async)' : ''} lacks what exports and publishing need:`,
      ...missing.map((m) => `  - ${m}`),
      'Build gdal-async against the system GDAL (Debian: libgdal-dev) with npm_config_build_from_source=gdal-async and',
      'npm_config_shared_gdal=true in the environment of `npm ci` (scripts/setup.sh and docker/Dockerfile do this).',
    ].join('\n'),
  );
}

// `node dist/src/core/gdal-drivers.js` (the Dockerfile, scripts/setup.sh): fail the install, not the first job.
if (require.main === module) {
  try {
    assertGdalDrivers();
    console.log(`GDAL ${gdal.version}: every driver the worker needs is present.`);
  } catch (e) {
    console.error(e instanceof GdalInstallError ? e.message : e);
    process.exit(1);
  }
}

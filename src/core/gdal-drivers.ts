import * as gdal from 'gdal-async';

/**
 * A GDAL driver the worker uses, and whether it writes with it (export targets, the PostgreSQL publish target). Core only
 * checks a list of needs: the list is assembled where the export formats and publish readers are known.
 */
export interface DriverNeed {
  name: string;
  write: boolean;
  /** A creation option the code passes (SQLite's SPATIALITE=YES needs GDAL built with SpatiaLite). */
  creationOption?: string;
}

/** What is missing from this process's GDAL, one readable line per need; empty when everything is there. */
export function missingGdalDrivers(needs: readonly DriverNeed[]): string[] {
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
export function assertGdalDrivers(needs: readonly DriverNeed[]): void {
  const missing = missingGdalDrivers(needs);
  if (!missing.length) return;
  throw new GdalInstallError(
    [
      `GDAL ${gdal.version}${gdal.bundled ? ' (the copy bundled with gdal-async)' : ''} lacks what exports and publishing need:`,
      ...missing.map((m) => `  - ${m}`),
      'Build gdal-async against the system GDAL (Debian: libgdal-dev): in node_modules/gdal-async, run',
      'GYP_DEFINES=shared_gdal=true node_modules/.bin/node-pre-gyp install --build-from-source (as scripts/setup.sh does).',
    ].join('\n'),
  );
}

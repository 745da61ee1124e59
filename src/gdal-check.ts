import * as gdal from 'gdal-async';
import { assertGdalDrivers, DriverNeed, GdalInstallError } from './core/gdal-drivers';
import { FORMAT_CATALOGUE } from './export/formats';
import { PUBLISH_FILE_TYPES } from './publish/file-types';

/**
 * Derived from the export formats and the publish readers, so a format added there is checked without a second
 * list to keep in step. gdal-async's bundled GDAL (what a plain `npm ci` builds or downloads) lacks PostgreSQL and
 * XLSX: this is what catches an install that did not link the system GDAL.
 */
export function requiredGdalDrivers(): DriverNeed[] {
  const needs = new Map<string, DriverNeed>();
  const add = (need: DriverNeed) => {
    const known = needs.get(need.name);
    needs.set(need.name, {
      ...known,
      ...need,
      write: need.write || !!known?.write,
      creationOption: need.creationOption ?? known?.creationOption,
    });
  };
  add({ name: 'PostgreSQL', write: true });
  add({ name: 'OGR_VRT', write: false });
  for (const spec of Object.values(FORMAT_CATALOGUE)) {
    add({ name: spec.driver, write: true });
    for (const opt of spec.dsco) add({ name: spec.driver, write: true, creationOption: opt.split('=')[0] });
  }
  for (const { driver: name } of Object.values(PUBLISH_FILE_TYPES)) add({ name, write: false });
  return [...needs.values()];
}

// `node dist/src/gdal-check.js` (the Dockerfile, scripts/setup.sh): fail the install, not the first job.
if (require.main === module) {
  try {
    assertGdalDrivers(requiredGdalDrivers());
    console.log(`GDAL ${gdal.version}: every driver the worker needs is present.`);
  } catch (e) {
    console.error(e instanceof GdalInstallError ? e.message : e);
    process.exit(1);
  }
}

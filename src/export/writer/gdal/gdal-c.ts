/**
 * GDAL's C library through koffi, for what gdal-async 3.12 does not bind (field domains, relationships): the same
 * library gdal-async runs on, as the process mapped it (so both share one GDAL and its drivers), else the system's.
 */
import { readFileSync } from 'node:fs';

type KoffiLib = ReturnType<typeof import('koffi').load>;
let lib: KoffiLib | undefined;

function libraryPath(): string {
  try {
    return /\S*\/libgdal\.so[.\d]*$/m.exec(readFileSync('/proc/self/maps', 'utf8'))?.[0] ?? 'libgdal.so';
  } catch {
    return 'libgdal.so';
  }
}

export function gdalLibrary(): { koffi: typeof import('koffi'); lib: KoffiLib } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the worker's first export that needs it
  const koffi = require('koffi') as typeof import('koffi');
  if (!lib) {
    lib = koffi.load(libraryPath());
    lib.func('void GDALAllRegister()')();
  }
  return { koffi, lib };
}

/** Dataset open flags of GDALOpenEx. */
export const GDAL_OF = { UPDATE: 0x01, VECTOR: 0x04, VERBOSE_ERROR: 0x40 };

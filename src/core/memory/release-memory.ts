/**
 * Hands the free pages inside the process's heaps back to the system: glibc's malloc_trim(0).
 *
 * GDAL's drivers free much of what an export used in small pieces spread through glibc's heaps (SQLite's page
 * cache for a GeoPackage, the shapefile writer's buffers), and glibc gives back on its own only what sits at the
 * top of a heap. After a large GeoPackage the worker stayed well above its idle size until it exited; with a trim
 * after each job it returns to it, for a few milliseconds a call. Node has no binding for malloc_trim, so koffi (a
 * maintained FFI library with prebuilt binaries) calls it. Where the C library is not glibc, this does nothing.
 */
type Trim = (pad: number) => number;

let trim: Trim | null | undefined;

function load(): Trim | null {
  if (process.platform !== 'linux') return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only where it is called, the worker
    const koffi = require('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as Trim;
  } catch {
    return null; // not glibc (musl has no malloc_trim), or koffi has no binary for this platform
  }
}

/** Whether memory could be handed back (false where malloc_trim is not available). */
export function releaseFreeMemory(): boolean {
  if (trim === undefined) trim = load();
  if (!trim) return false;
  trim(0);
  return true;
}

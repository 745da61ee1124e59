import { createWriteStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/**
 * Deflate level 1 by default: on a 154 MB shapefile it took 1.5 s instead of 3.2 s at the default level 6, for a
 * zip 2% larger (36.7 MB vs 35.9 MB). Level 0 stores without compressing (about 0.3 s, a 4x larger download).
 */
export const DEFAULT_ZIP_LEVEL = 1;

/** Every file under dir, as zip entry names relative to it ('/'-separated), sorted for a stable layout. */
export async function listEntries(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? posix.join(prefix, e.name) : e.name;
    if (e.isDirectory()) out.push(...(await listEntries(join(dir, e.name), rel)));
    else if (e.isFile()) out.push(rel);
  }
  return out.sort();
}

/** Zips the files under dir into zipPath, streaming each from disk (ZIP64 when sizes need it). */
export async function zipDirectory(dir: string, zipPath: string, signal?: AbortSignal, level = DEFAULT_ZIP_LEVEL): Promise<void> {
  const zip = new ZipFile();
  const opts = level === 0 ? { compress: false } : { compress: true, compressionLevel: level };
  for (const entry of await listEntries(dir)) zip.addFile(join(dir, ...entry.split('/')), entry, opts);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath), { signal });
}

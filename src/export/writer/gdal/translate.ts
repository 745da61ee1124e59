import * as gdal from 'gdal-async';

/** One layer through GDAL (ogr2ogr's arguments) into `path`, flushed and closed. */
export async function translateLayer(src: gdal.Dataset, path: string, args: string[]): Promise<void> {
  const out = await gdal.vectorTranslateAsync(path, src, args);
  try {
    // GeoPackage builds its spatial index and XLSX writes the whole workbook on flush: keep that work in the
    // thread pool, so the synchronous close() that follows has little left to do.
    await out.flushAsync();
  } finally {
    out.close();
  }
}

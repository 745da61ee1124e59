import gdal from 'gdal-async';
import { mkdtempSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { zipDirectory } from '../../src/export/writer/zip/zip';

/** A zipped point shapefile of n points written by GDAL under dir; `damage` may change the files before zipping. */
export async function shapefileZip(dir: string, n: number, damage?: (stem: string) => void): Promise<Buffer> {
  const src = mkdtempSync(path.join(dir, 'shp-'));
  const ds = gdal.drivers.get('ESRI Shapefile').create(path.join(src, 'points.shp'));
  const layer = ds.layers.create('points', gdal.SpatialReference.fromEPSG(4326), gdal.wkbPoint);
  layer.fields.add(new gdal.FieldDefn('n', gdal.OFTInteger));
  for (let i = 0; i < n; i++) {
    const f = new gdal.Feature(layer);
    f.fields.set('n', i);
    f.setGeometry(new gdal.Point(i % 180, (i % 80) / 2));
    layer.features.add(f);
  }
  ds.close();
  damage?.(path.join(src, 'points'));
  const zip = path.join(dir, `${path.basename(src)}.zip`);
  await zipDirectory(src, zip);
  return readFileSync(zip);
}

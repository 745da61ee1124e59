import { readFileSync } from 'node:fs';

/* eslint-disable @typescript-eslint/no-explicit-any -- koffi's functions take and give untyped values */
/** GDAL's own reading of a dataset's relationships, through its C API (gdal-async does not bind them), with the library gdal-async loaded. */
export function relationships(file: string) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- koffi, as the export writer loads it
  const koffi = require('koffi') as typeof import('koffi');
  const lib = koffi.load(/\S*\/libgdal\.so[.\d]*$/m.exec(readFileSync('/proc/self/maps', 'utf8'))![0]);
  const fn = (decl: string): ((...args: any[]) => any) => lib.func(decl);
  const list = (p: unknown): string[] =>
    p ? (koffi.decode(p, koffi.array('const char *', fn('int CSLCount(void *)')(p))) as string[]) : [];
  const ds = fn('void *GDALOpenEx(const char *, unsigned int, void *, void *, void *)')(file, 0x04, null, null, null);
  if (!ds) throw new Error(`GDAL could not open ${file}`);
  try {
    return list(fn('void *GDALDatasetGetRelationshipNames(void *, void *)')(ds, null)).map((name) => {
      const h = fn('void *GDALDatasetGetRelationship(void *, const char *)')(ds, name);
      return {
        name,
        left: fn('const char *GDALRelationshipGetLeftTableName(void *)')(h),
        right: fn('const char *GDALRelationshipGetRightTableName(void *)')(h),
        cardinality: fn('int GDALRelationshipGetCardinality(void *)')(h),
        leftFields: list(fn('void *GDALRelationshipGetLeftTableFields(void *)')(h)),
        rightFields: list(fn('void *GDALRelationshipGetRightTableFields(void *)')(h)),
        mapping: fn('const char *GDALRelationshipGetMappingTableName(void *)')(h),
        type: fn('int GDALRelationshipGetType(void *)')(h),
        relatedType: fn('const char *GDALRelationshipGetRelatedTableType(void *)')(h),
      };
    });
  } finally {
    fn('void GDALClose(void *)')(ds);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

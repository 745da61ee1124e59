/**
 * A layer's attribute domains written into a GeoPackage or File Geodatabase as the format defines them (GeoPackage's
 * schema extension, the geodatabase's domains), by GDAL itself after the translate: the dataset is opened again, each
 * domain added once, and each field told its domain's name.
 *
 * Why through GDAL's C API with koffi: gdal-async 3.12 has no binding for field domains, ogr2ogr copies them only
 * from a source that has them (PostgreSQL has none), and GDAL writes each format's own structures (a geodatabase's
 * domains are XML in its system tables), which hand-written SQL could reproduce for GeoPackage alone.
 */
import { FieldDomain } from '../../../layers/field-domain';
import { LayerField } from '../../../layers/layer-schema';
import { ExportFormat } from '../types';
import { gdalLibrary } from './gdal-c';

/** The formats whose files hold field domains. */
export const DOMAIN_FORMATS: readonly ExportFormat[] = ['geopackage', 'filegdb'];

const GDAL_OF_UPDATE = 0x01;
const GDAL_OF_VECTOR = 0x04;
const GDAL_OF_VERBOSE_ERROR = 0x40;
const ALTER_DOMAIN_FLAG = 0x40;
const OFT = { Integer: 0, Real: 2, String: 4, DateTime: 11, Integer64: 12 };
const MERGE: Record<string, number> = { esriMPTDefaultValue: 0, esriMPTSumValues: 1, esriMPTAreaWeighted: 2 };
const SPLIT: Record<string, number> = { esriSPTDefaultValue: 0, esriSPTDuplicate: 1, esriSPTGeometryRatio: 2 };

/* eslint-disable @typescript-eslint/no-explicit-any -- koffi's functions take and give untyped values */
type Fn = (...args: any[]) => any;

interface Gdal {
  open: Fn;
  close: Fn;
  coded: Fn;
  range: Fn;
  setMerge: Fn;
  setSplit: Fn;
  add: Fn;
  destroy: Fn;
  layer: Fn;
  defn: Fn;
  index: Fn;
  field: Fn;
  fieldName: Fn;
  fieldType: Fn;
  fieldSubType: Fn;
  fieldCreate: Fn;
  fieldDestroy: Fn;
  setDomain: Fn;
  alter: Fn;
  lastError: Fn;
}

let gdal: Gdal | undefined;

function load(): Gdal {
  if (gdal) return gdal;
  const { koffi, lib } = gdalLibrary();
  // Types without names: koffi's names are global to the process, and a second load (a test runner's) would clash.
  const codedValue = koffi.struct({ pszCode: 'const char *', pszValue: 'const char *' });
  const date = koffi.struct({
    Year: 'int16_t',
    Month: 'uint8_t',
    Day: 'uint8_t',
    Hour: 'uint8_t',
    Minute: 'uint8_t',
    TZFlag: 'uint8_t',
    Reserved: 'uint8_t',
    Second: 'float',
  });
  const field = koffi.pointer(
    koffi.union({ Integer: 'int', Integer64: 'int64_t', Real: 'double', Date: date, Bytes: koffi.array('uint8_t', 16) }),
  );
  gdal = {
    open: lib.func('void *GDALOpenEx(const char *, unsigned int, void *, void *, void *)'),
    close: lib.func('void GDALClose(void *)'),
    coded: lib.func('OGR_CodedFldDomain_Create', 'void *', ['const char *', 'const char *', 'int', 'int', koffi.pointer(codedValue)]),
    range: lib.func('OGR_RangeFldDomain_Create', 'void *', ['const char *', 'const char *', 'int', 'int', field, 'bool', field, 'bool']),
    setMerge: lib.func('void OGR_FldDomain_SetMergePolicy(void *, int)'),
    setSplit: lib.func('void OGR_FldDomain_SetSplitPolicy(void *, int)'),
    add: lib.func('bool GDALDatasetAddFieldDomain(void *, void *, _Out_ char **)'),
    destroy: lib.func('void OGR_FldDomain_Destroy(void *)'),
    layer: lib.func('void *GDALDatasetGetLayerByName(void *, const char *)'),
    defn: lib.func('void *OGR_L_GetLayerDefn(void *)'),
    index: lib.func('int OGR_FD_GetFieldIndex(void *, const char *)'),
    field: lib.func('void *OGR_FD_GetFieldDefn(void *, int)'),
    fieldName: lib.func('const char *OGR_Fld_GetNameRef(void *)'),
    fieldType: lib.func('int OGR_Fld_GetType(void *)'),
    fieldSubType: lib.func('int OGR_Fld_GetSubType(void *)'),
    fieldCreate: lib.func('void *OGR_Fld_Create(const char *, int)'),
    fieldDestroy: lib.func('void OGR_Fld_Destroy(void *)'),
    setDomain: lib.func('void OGR_Fld_SetDomainName(void *, const char *)'),
    alter: lib.func('int OGR_L_AlterFieldDefn(void *, int, void *, int)'),
    lastError: lib.func('const char *CPLGetLastErrorMsg()'),
  };
  return gdal;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** A date code or bound (epoch milliseconds) as GDAL's date (UTC). */
function ogrDate(ms: number) {
  const d = new Date(ms);
  const second = d.getUTCSeconds() + d.getUTCMilliseconds() / 1000;
  const [Year, Month, Day, Hour, Minute] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
  return { Date: { Year, Month, Day, Hour, Minute, TZFlag: 100, Reserved: 0, Second: second } };
}

/** A range bound as the OGRField of the output field's type. */
function bound(type: number, v: number) {
  if (type === OFT.Integer) return { Integer: v };
  if (type === OFT.Integer64) return { Integer64: v };
  if (type === OFT.DateTime) return ogrDate(v);
  return { Real: v };
}

/** A code as GDAL's text for the output field's type. */
const codeText = (type: number, code: string | number) => (type === OFT.DateTime ? new Date(code).toISOString() : String(code));

function createDomain(g: Gdal, d: FieldDomain, type: number, subType: number): unknown {
  const h =
    d.type === 'codedValue'
      ? g.coded(d.name, d.description ?? '', type, subType, [
          ...d.codedValues.map((cv) => ({ pszCode: codeText(type, cv.code), pszValue: cv.name })),
          { pszCode: null, pszValue: null },
        ])
      : g.range(d.name, d.description ?? '', type, subType, bound(type, d.range[0]), true, bound(type, d.range[1]), true);
  if (!h) throw new Error(`GDAL could not make domain '${d.name}': ${g.lastError()}`);
  if (d.mergePolicy) g.setMerge(h, MERGE[d.mergePolicy] ?? 0);
  if (d.splitPolicy) g.setSplit(h, SPLIT[d.splitPolicy] ?? 0);
  return h;
}

/**
 * Adds the domains of `fields` to layer `layerName` of the dataset at `path` (closed by the translate): each domain
 * once per dataset (layers may share one), typed as GDAL wrote its field. Fields GDAL did not write as such (the
 * OID, which is the FID) are passed over. Does nothing, and loads nothing, for fields without domains.
 */
export function addFieldDomains(path: string, layerName: string, fields: LayerField[]): void {
  const withDomain = fields.filter((f) => f.domain && f.type !== 'esriFieldTypeOID');
  if (!withDomain.length) return;
  const g = load();
  const ds = g.open(path, GDAL_OF_UPDATE | GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, null, null, null);
  if (!ds) throw new Error(`GDAL could not open ${layerName} to add its domains: ${g.lastError()}`);
  try {
    const layer = g.layer(ds, layerName);
    if (!layer) throw new Error(`GDAL found no layer '${layerName}' to add its domains to`);
    const defn = g.defn(layer);
    for (const f of withDomain) {
      const i = g.index(defn, f.name);
      if (i < 0) continue;
      const current = g.field(defn, i);
      const type = g.fieldType(current);
      const domain = f.domain!;
      const h = createDomain(g, domain, type, g.fieldSubType(current));
      const reason: (string | null)[] = [null];
      // false also when a layer written before added the same domain: the dataset keeps that one.
      const added = g.add(ds, h, reason);
      g.destroy(h);
      if (!added && !/already exist/i.test(`${reason[0] ?? ''} ${g.lastError()}`))
        throw new Error(`GDAL could not add domain '${domain.name}': ${reason[0] ?? g.lastError()}`);
      const altered = g.fieldCreate(g.fieldName(current), type);
      g.setDomain(altered, domain.name);
      const err = g.alter(layer, i, altered, ALTER_DOMAIN_FLAG);
      g.fieldDestroy(altered);
      if (err !== 0) throw new Error(`GDAL could not set the domain of field '${f.name}': ${g.lastError()}`);
    }
  } finally {
    g.close(ds);
  }
}

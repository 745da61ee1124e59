/** Shapefile extras: the field-name mapping read back from the written .dbf, the README, and size checks. */
import { open, stat, writeFile } from 'node:fs/promises';
import { LayerField } from '../../../layers/layer-schema';
import { checkShapefileSizes } from '../limits';
import { csvCell as copyCsvCell } from '../copy/copy-format';

/**
 * The .dbf field names GDAL actually wrote (laundered to 10 characters, de-duplicated with _1, _2 ...), read from the
 * dBase header: 32-byte field descriptors after a 32-byte header, ended by 0x0D, each starting with the name in 11
 * NUL-padded bytes (UTF-8, as ENCODING=UTF-8 writes it). Not through GDAL: opening the layer there loads the whole
 * .shx index, which took the worker far past its peak just to learn the names.
 */
export async function readDbfFieldNames(dbfPath: string): Promise<string[]> {
  const fh = await open(dbfPath, 'r');
  try {
    const head = Buffer.alloc(32);
    if ((await fh.read(head, 0, 32, 0)).bytesRead < 32) throw new Error(`${dbfPath}: not a dBase file`);
    const headerLength = head.readUInt16LE(8);
    const descriptors = Buffer.alloc(Math.max(0, headerLength - 32));
    const { bytesRead } = await fh.read(descriptors, 0, descriptors.length, 32);
    const names: string[] = [];
    const utf8 = new TextDecoder('utf-8');
    for (let at = 0; at + 32 <= bytesRead && descriptors[at] !== 0x0d; at += 32) {
      const raw = descriptors.subarray(at, at + 11);
      const end = raw.indexOf(0);
      names.push(utf8.decode(end < 0 ? raw : raw.subarray(0, end)));
    }
    return names;
  } finally {
    await fh.close();
  }
}

const csvCell = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

function note(f: LayerField, written: string): string {
  const notes: string[] = [];
  if (written !== f.name) notes.push('name shortened to the 10 characters a shapefile allows');
  if (f.type === 'esriFieldTypeDate') notes.push('date only: the time of day is dropped (dates are UTC)');
  if (f.type === 'esriFieldTypeString' && (f.length ?? 0) > 254) notes.push('text longer than 254 bytes is cut');
  if (f.type === 'esriFieldTypeBigInteger') notes.push('stored as an 18-digit number');
  return notes.join('; ');
}

/** `<layer>_fieldnames.csv`: original ArcGIS name → name in the .dbf, in field order. */
export function fieldNameMappingCsv(fields: LayerField[], written: string[]): string {
  if (written.length !== fields.length) {
    throw new Error(`shapefile mapping: ${fields.length} fields were exported but the .dbf holds ${written.length}`);
  }
  const rows = fields.map((f, i) => [f.name, written[i], f.alias, note(f, written[i])].map(csvCell).join(','));
  return ['field_name,shapefile_field_name,alias,note', ...rows].join('\r\n') + '\r\n';
}

export function shapefileReadme(layers: { layerName: string; source: string }[]): string {
  return [
    'Shapefile export',
    '',
    'Layers (one shapefile each, one geometry type per file):',
    ...layers.map((l) => `  ${l.layerName}.shp  <-  ${l.source}`),
    '',
    'Format limits applied:',
    '- Text is UTF-8; the .cpg file says so (ArcGIS and QGIS read it).',
    '- Field names longer than 10 characters are shortened (population_density_2020 -> population, then',
    '  populati_1 ...). <layer>_fieldnames.csv maps every original name to the name in the .dbf.',
    '- Date fields keep the date only: a shapefile (dBase) has no time of day, so times are dropped.',
    '  Dates are taken in UTC. Export to File Geodatabase, GeoPackage or CSV to keep times.',
    '- Text values are limited to 254 bytes.',
    '- Layers without geometry (or exported without it) have a .dbf table only.',
    '- Fields with an attribute domain hold its codes; <layer>_domains.csv, written for layers that have',
    "  domains, lists each field's coded values and their descriptions, or its range.",
    '- No .shp or .dbf is larger than 2 GB; bigger exports are refused rather than cut.',
    '',
  ].join('\r\n');
}

/** Writes the mapping file next to the layer's .shp and returns the .dbf field names. */
export async function writeFieldMapping(dir: string, layerName: string, fields: LayerField[]): Promise<void> {
  const written = await readDbfFieldNames(`${dir}/${layerName}.dbf`);
  await writeFile(`${dir}/${layerName}_fieldnames.csv`, fieldNameMappingCsv(fields, written), 'utf8');
}

/**
 * `<layer>_domains.csv`: the attribute domains of the layer's fields, one row per coded value (code, description)
 * and one per range (minimum, maximum); null when no field has a domain. A shapefile cannot hold domains, and the
 * .dbf keeps the codes.
 */
export function domainListCsv(fields: LayerField[], written: string[]): string | null {
  const rows: string[] = [];
  // Text a spreadsheet would run as a formula is escaped as CSV exports escape it; numbers stay numbers.
  const row = (cells: (string | number)[]) =>
    rows.push(cells.map((c) => (typeof c === 'number' ? String(c) : copyCsvCell(c, true))).join(','));
  fields.forEach((f, i) => {
    const d = f.domain;
    if (!d) return;
    const head = [f.name, written[i] ?? f.name, d.name, d.type];
    if (d.type === 'range') row([...head, '', '', d.range[0], d.range[1]]);
    else for (const cv of d.codedValues) row([...head, cv.code, cv.name, '', '']);
  });
  if (!rows.length) return null;
  return ['field_name,shapefile_field_name,domain_name,domain_type,code,description,minimum,maximum', ...rows].join('\r\n') + '\r\n';
}

/** Writes `<layer>_domains.csv` next to the layer's .shp when its fields have domains. */
export async function writeDomainList(dir: string, layerName: string, fields: LayerField[]): Promise<void> {
  if (!fields.some((f) => f.domain)) return;
  const text = domainListCsv(fields, await readDbfFieldNames(`${dir}/${layerName}.dbf`));
  if (text) await writeFile(`${dir}/${layerName}_domains.csv`, text, 'utf8');
}

const sizeOf = (p: string) =>
  stat(p).then(
    (s) => s.size,
    () => 0,
  );

/** Checks the written .shp/.dbf against the 2 GB limit (GDAL's 2GB_LIMIT=YES is the first guard). */
export async function checkWrittenShapefile(dir: string, layerName: string): Promise<void> {
  const [shp, dbf] = await Promise.all([sizeOf(`${dir}/${layerName}.shp`), sizeOf(`${dir}/${layerName}.dbf`)]);
  checkShapefileSizes(layerName, { shp, dbf }, 'written');
}

/** Records written so far, from the .dbf size and its header (GDAL updates the count only on close). */
export async function dbfRecordsWritten(dbfPath: string): Promise<number | null> {
  let fh;
  try {
    fh = await open(dbfPath, 'r');
    const head = Buffer.alloc(12);
    const { bytesRead } = await fh.read(head, 0, 12, 0);
    const size = (await fh.stat()).size;
    if (bytesRead < 12) return null;
    const headerLength = head.readUInt16LE(8);
    const recordLength = head.readUInt16LE(10);
    return recordLength > 0 && size > headerLength ? Math.floor((size - headerLength) / recordLength) : 0;
  } catch {
    return null;
  } finally {
    await fh?.close();
  }
}

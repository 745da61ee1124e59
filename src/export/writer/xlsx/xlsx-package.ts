/**
 * The parts of an .xlsx package around its sheets (ECMA-376 part 1 and 2): content types, relationships, the
 * workbook naming the sheets, and the styles the date cells use. Only what Excel needs to open the file without
 * repairs: no theme, no document properties.
 */
import { DATE_MS_STYLE, DATE_STYLE, RELATIONSHIPS_NS, SPREADSHEET_NS, XML_DECLARATION, xmlText } from './xlsx-sheet';

const PACKAGE_RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CONTENT_TYPES_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const OFFICE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A sheet's part, relative to the package root. */
export const sheetPart = (i: number) => `xl/worksheets/sheet${i + 1}.xml`;

/** GDAL's display formats for date-times, with milliseconds only where a value has them. */
const DATE_FORMATS: Record<number, string> = {
  [DATE_STYLE]: 'DD/MM/YYYY\\ HH:MM:SS',
  [DATE_MS_STYLE]: 'DD/MM/YYYY\\ HH:MM:SS.000',
};

/** Every part but the sheets, by path within the package. */
export function packageParts(sheetNames: string[]): Record<string, string> {
  const sheets = sheetNames.map((_, i) => i);
  const contentTypes =
    `<Types xmlns="${CONTENT_TYPES_NS}">` +
    `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
    `<Default Extension="xml" ContentType="application/xml"/>` +
    `<Override PartName="/xl/workbook.xml" ContentType="${OFFICE}.sheet.main+xml"/>` +
    `<Override PartName="/xl/styles.xml" ContentType="${OFFICE}.styles+xml"/>` +
    sheets.map((i) => `<Override PartName="/${sheetPart(i)}" ContentType="${OFFICE}.worksheet+xml"/>`).join('') +
    `</Types>`;
  const rootRels =
    `<Relationships xmlns="${PACKAGE_RELS_NS}">` +
    `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/>` +
    `</Relationships>`;
  // Sheet i is relationship rId{i+1}; the styles come after them. The schema makes the window (workbookView)
  // optional, but Excel's print preview has crashed on workbooks without one.
  const workbook =
    `<workbook xmlns="${SPREADSHEET_NS}" xmlns:r="${RELATIONSHIPS_NS}"><bookViews><workbookView/></bookViews><sheets>` +
    sheets.map((i) => `<sheet name="${xmlText(sheetNames[i])}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
    `</sheets></workbook>`;
  const workbookRels =
    `<Relationships xmlns="${PACKAGE_RELS_NS}">` +
    sheets.map((i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('') +
    `<Relationship Id="rId${sheets.length + 1}" Type="${REL}/styles" Target="styles.xml"/>` +
    `</Relationships>`;
  const formats = Object.entries(DATE_FORMATS);
  const xf = (numFmtId: number) =>
    `<xf numFmtId="${numFmtId}" fontId="0" fillId="0" borderId="0" xfId="0"${numFmtId ? ' applyNumberFormat="1"' : ''}/>`;
  // Cell style k uses number format 163 + k (custom formats are numbered from 164).
  const styles =
    `<styleSheet xmlns="${SPREADSHEET_NS}">` +
    `<numFmts count="${formats.length}">` +
    formats.map(([k, code]) => `<numFmt numFmtId="${163 + Number(k)}" formatCode="${xmlText(code)}"/>`).join('') +
    `</numFmts>` +
    `<fonts count="1"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
    `<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
    `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
    `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
    `<cellXfs count="${formats.length + 1}">${xf(0)}${formats.map(([k]) => xf(163 + Number(k))).join('')}</cellXfs>` +
    `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
    `</styleSheet>`;
  const parts: Record<string, string> = {
    '[Content_Types].xml': contentTypes,
    '_rels/.rels': rootRels,
    'xl/workbook.xml': workbook,
    'xl/_rels/workbook.xml.rels': workbookRels,
    'xl/styles.xml': styles,
  };
  for (const k of Object.keys(parts)) parts[k] = XML_DECLARATION + parts[k];
  return parts;
}

import { execFileSync } from 'node:child_process';

/**
 * Reads a workbook with openpyxl (Debian's python3-openpyxl, installed by scripts/test.sh), the reader pandas uses:
 * a second opinion beside GDAL's. Every sheet's rows as values; dates (cells with a date format) as ISO text
 * without a zone, to the millisecond, as openpyxl rounds them. Text as Excel shows it: Excel decodes _xHHHH_ in a
 * string as the character HHHH (ECMA-376 Part 1, ST_Xstring), which openpyxl leaves as it is; openpyxl's own
 * decoder does it.
 */
const SCRIPT = `
import datetime, json, sys, openpyxl
from openpyxl.utils.escape import unescape
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
def value(v):
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec='milliseconds')
    if isinstance(v, str):
        return unescape(v)
    return v
out = {ws.title: [[value(v) for v in row] for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}
json.dump(out, sys.stdout, ensure_ascii=False)
`;

export type Cell = string | number | boolean | null;

export function readWorkbook(path: string): Record<string, Cell[][]> {
  const text = execFileSync('/usr/bin/python3', ['-c', SCRIPT, path], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return JSON.parse(text) as Record<string, Cell[][]>;
}

/** One part of a workbook (or any zip) as text, read by Python's zipfile: what a part says, beyond what readers make of it. */
export function readPart(path: string, part: string): string {
  const script = 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())';
  return execFileSync('/usr/bin/python3', ['-c', script, path, part], { encoding: 'utf8', maxBuffer: 1 << 30 });
}

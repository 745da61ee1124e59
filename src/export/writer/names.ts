/**
 * Names that end up as file names, zip entries and layer/table/sheet names. Everything is reduced to ASCII
 * letters, digits and '_' (plus '-' and '.' in the base name) so every driver, unzip tool and OS accepts it.
 */

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

function ascii(name: string): string {
  // "Städte" → "Stadte" rather than "St_dte": decompose, then drop the combining marks.
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

/** The download's file name without extension. */
export function safeBaseName(name: string, maxLength = 100): string {
  let s = ascii(name ?? '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, maxLength)
    .replace(/[._-]+$/, '');
  if (!s) s = 'export';
  return WINDOWS_RESERVED.test(s) ? `${s}_` : s;
}

/** A layer name usable as a file name and as a table, feature class or sheet name (starts with a letter). */
export function safeLayerName(name: string, maxLength = 64): string {
  let s = ascii(name ?? '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!s) s = 'layer';
  if (!/^[A-Za-z]/.test(s)) s = `L${s}`;
  s = s.slice(0, maxLength).replace(/_+$/, '');
  return WINDOWS_RESERVED.test(s) ? `${s}_` : s;
}

/** safeLayerName for every layer, made unique case-insensitively (file systems and FileGDB ignore case). */
export function uniqueLayerNames(names: string[], maxLength = 64): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base = safeLayerName(name, maxLength);
    let candidate = base;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, maxLength - suffix.length)}${suffix}`;
    }
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

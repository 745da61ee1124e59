/**
 * The one way to build an ogr2ogr argument list (gdal.vectorTranslate). GDAL 3.6 parses the list like a command
 * line: an element starting with '-' is an option wherever it stands (a layer named '-overwrite' turns into the
 * -overwrite flag), an element after an option that takes a value is that value whatever it looks like, any other
 * element is a source layer name, and `-sql @path` / `-where @path` read the statement from a file on the server.
 *
 * So user-supplied text (layer, field and file names, where clauses, SQL) goes in only as the value of an option
 * that takes one, never as '@…' after -sql/-where, and a positional layer name may not start with '-'. Options are
 * checked against the lists below, so a typo cannot make the next value positional either.
 */
export class UnsafeGdalArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeGdalArgumentError';
  }
}

/** ogr2ogr options this service uses that take exactly one value. */
const WITH_VALUE = new Set([
  '-f',
  '-nln',
  '-nlt',
  '-sql',
  '-dialect',
  '-where',
  '-t_srs',
  '-s_srs',
  '-lco',
  '-dsco',
  '-gt',
  '-dim',
  '-fieldmap',
  '-limit',
]);
/** Options that take no value. */
const FLAGS = new Set(['-append', '-update', '-preserve_fid']);
/** Options whose value, when it starts with '@', names a file GDAL reads the value from. */
const READS_FILE = new Set(['-sql', '-where']);

export class OgrArgs {
  private readonly list: string[] = [];

  flag(name: string): this {
    if (!FLAGS.has(name)) throw new UnsafeGdalArgumentError(`ogr2ogr flag ${name} is not one this service passes.`);
    this.list.push(name);
    return this;
  }

  option(name: string, value: string | number): this {
    if (!WITH_VALUE.has(name)) throw new UnsafeGdalArgumentError(`ogr2ogr option ${name} is not one this service passes.`);
    const v = String(value);
    if (v.includes('\0')) throw new UnsafeGdalArgumentError(`The value of ${name} holds a NUL character.`);
    if (READS_FILE.has(name) && v.trimStart().startsWith('@'))
      throw new UnsafeGdalArgumentError(`The value of ${name} may not start with '@'.`);
    this.list.push(name, v);
    return this;
  }

  /** A source layer name in a positional slot; see canBePositional for names that need another route. */
  layer(name: string): this {
    if (!OgrArgs.canBePositional(name))
      throw new UnsafeGdalArgumentError(`Layer name '${name.slice(0, 64)}' cannot be passed to GDAL as a positional argument.`);
    this.list.push(name);
    return this;
  }

  static canBePositional(name: string): boolean {
    return name.length > 0 && !name.startsWith('-') && !name.includes('\0');
  }

  toArray(): string[] {
    return [...this.list];
  }
}

/**
 * A reply already written as compact JSON (a query page PostgreSQL built): the format interceptor sends the text as it
 * is instead of serialising a value, so a large reply is never parsed into objects and written out again. It is kept
 * in its pieces (the members around the features, the features' text), which `bytes` writes into one buffer: joined
 * first, the page's text (~470 KiB for 2,000 GeoJSON points) was copied once more into a string of its own.
 */
export class JsonText {
  private readonly pieces: string[];

  constructor(...pieces: string[]) {
    this.pieces = pieces;
  }

  get text(): string {
    return this.pieces.join('');
  }

  /** The reply's UTF-8 bytes. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.pieces.reduce((n, p) => n + Buffer.byteLength(p), 0));
    let at = 0;
    for (const p of this.pieces) at += out.write(p, at);
    return out;
  }
}

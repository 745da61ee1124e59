/**
 * A reply already written as compact JSON (a query page PostgreSQL built): the format interceptor sends the text as it
 * is instead of serialising a value, so a large reply is never parsed into objects and written out again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A problem with the uploaded file that the user can act on (empty, corrupt, no coordinates, unsupported
 * geometry, too many layers...). The message is meant for the user as is; retrying cannot fix it.
 */
export class PublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishError';
  }
}

/** loadLayer stopped because its AbortSignal fired; the target table is left empty (the load is one transaction). */
export class PublishAbortedError extends Error {
  constructor(message = 'The load was cancelled.') {
    super(message);
    this.name = 'PublishAbortedError';
  }
}

/**
 * A failure the user can act on (limit exceeded, unknown spatial reference, data the format cannot hold).
 * The caller marks the job failed without retrying; any other Error may be transient and is worth a retry.
 */
export class ExportWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportWriteError';
  }
}

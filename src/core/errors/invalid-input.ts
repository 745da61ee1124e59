/**
 * Input that breaks a rule shared by the API and the worker (a job's parameter spec): a 400 envelope when a
 * request carries it, a permanent failure when a job's stored parameters no longer pass. Neither side needs to
 * know about the other's error type.
 */
export class InvalidInputError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(details.length ? `${message} ${details.join(' ')}` : message);
    this.name = 'InvalidInputError';
    this.summary = message;
  }

  /** The message without the details (the envelope carries them apart). */
  readonly summary: string;
}

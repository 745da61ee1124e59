/**
 * A domain error carrying the ArcGIS error envelope fields. Services and the worker throw these;
 * one filter turns them into `{"error":{code,messageCode,message,details}}` with HTTP 200.
 */
export class ArcgisError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly details: string[] = [],
    readonly messageCode?: string,
  ) {
    super(message);
    this.name = 'ArcgisError';
  }

  toEnvelope() {
    return {
      error: {
        code: this.code,
        ...(this.messageCode ? { messageCode: this.messageCode } : {}),
        message: this.message,
        details: this.details,
      },
    };
  }
}

/**
 * The errors the client library distinguishes. All go out as HTTP 200 with the envelope: on any other status the client
 * loses code and messageCode and never refreshes a token on 498.
 */
export const Errors = {
  tokenRequired: () => new ArcgisError(499, 'Token Required', ['Token Required'], 'GWM_0003'),
  // No messageCode: the client's ArcGISAuthError.code is the messageCode when there is one, and callers test for 498.
  invalidToken: () => new ArcgisError(498, 'Invalid token.', []),
  forbidden: (detail?: string) =>
    new ArcgisError(
      403,
      'You do not have permissions to access this resource or perform this operation.',
      detail ? [detail] : [],
      'GWM_0003',
    ),
  badRequest: (message: string, details: string[] = [], messageCode?: string) => new ArcgisError(400, message, details, messageCode),
  itemNotFound: (id?: string) =>
    new ArcgisError(
      400,
      'Item does not exist or is inaccessible.',
      id ? [`Item '${id}' does not exist or is inaccessible.`] : [],
      'CONT_0001',
    ),
  /** ArcGIS's refusal to delete an item whose delete protection is on (protect / unprotect). */
  itemProtected: (id: string) => new ArcgisError(400, `Unable to delete item ${id}. Delete protection is turned on.`, []),
  groupNotFound: (id?: string) =>
    new ArcgisError(
      400,
      'Group does not exist or is inaccessible.',
      id ? [`Group '${id}' does not exist or is inaccessible.`] : [],
      'COM_0003',
    ),
  userNotFound: (name?: string) =>
    new ArcgisError(
      400,
      'User does not exist or is inaccessible.',
      name ? [`User '${name}' does not exist or is inaccessible.`] : [],
      'COM_0019',
    ),
  invalidUrl: (path: string) => new ArcgisError(400, 'Invalid URL', [`No operation at '${path}'.`], 'GWM_0002'),
  internal: () => new ArcgisError(500, 'Unable to complete operation.', ['An unexpected error occurred; it has been logged.']),
};

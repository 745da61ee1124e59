import { randomBytes } from 'node:crypto';

/** ArcGIS ids for items, groups, orgs and roles: 32 lowercase hex characters. */
export const newId = (): string => randomBytes(16).toString('hex');
export const ID_PATTERN = /^[0-9a-f]{32}$/i;
export const USERNAME_PATTERN = /^[A-Za-z0-9_.@-]{1,128}$/;

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every privilege of the org_admin role before the three below were added: a custom role holding all of them was a full administrator. */
const FULL_BEFORE = [
  'portal:admin:shareToGroup',
  'portal:admin:viewItems',
  'portal:admin:deleteItems',
  'portal:admin:viewGroups',
  'portal:admin:updateGroups',
  'portal:admin:updateItems',
  'portal:admin:manageUsers',
  'portal:admin:manageRoles',
  'portal:user:createItem',
  'portal:user:createGroup',
  'portal:user:shareToGroup',
  'portal:user:shareToOrg',
  'portal:user:shareToPublic',
  'portal:user:joinGroup',
  'portal:publisher:publishFeatures',
];
const ADDED = ['portal:admin:reassignItems', 'portal:admin:viewUsers', 'portal:admin:updateUsers'];

/**
 * Custom roles that held every administrative privilege keep being full administrators (Bull Board, metrics, managing
 * any user) now that org_admin also holds reassignItems, viewUsers and updateUsers.
 */
export class AdminPrivileges1732440000000 implements MigrationInterface {
  name = 'AdminPrivileges1732440000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE roles SET privileges = privileges || ARRAY(SELECT a FROM unnest($2::text[]) a WHERE a <> ALL (privileges))
        WHERE privileges @> $1::text[]`,
      [FULL_BEFORE, ADDED],
    );
  }

  /** Takes the three back from such roles, also where one was granted to them since. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE roles SET privileges = ARRAY(SELECT p FROM unnest(privileges) p WHERE p <> ALL ($2::text[])) WHERE privileges @> $1::text[]`,
      [FULL_BEFORE, ADDED],
    );
  }
}

import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { entities } from '../../src/entities';
import { migrations } from '../../src/migrations';
import { createMigratedDatabase, dropDatabase } from '../support/database';

/** AdminPrivileges1732440000000: a custom role that was a full administrator stays one; lesser roles gain nothing. */
describe('migration: the administrator privileges added with the portal', () => {
  const server = process.env.TEST_DATABASE_URL!;
  let db: { name: string; url: string };
  let ds: DataSource;
  const id = () => randomBytes(16).toString('hex');

  beforeAll(async () => {
    db = await createMigratedDatabase(server, 'arcgis_mig');
    ds = new DataSource(dataSourceOptions(db.url, { entities, migrations }));
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    if (db) await dropDatabase(server, db.name);
  });

  /** Undoes the migrations from the newest back to AdminPrivileges, which is undone last. */
  const undoThroughAdminPrivileges = async () => {
    for (;;) {
      const [last] = await ds.query(`SELECT name FROM migrations ORDER BY id DESC LIMIT 1`);
      await ds.undoLastMigration();
      if (last.name === 'AdminPrivileges1732440000000') return;
    }
  };

  it('adds reassignItems, viewUsers and updateUsers to roles that held the whole former admin set, and only to them', async () => {
    await undoThroughAdminPrivileges();
    const org = id();
    await ds.query(`INSERT INTO orgs (id, name, url_key) VALUES ($1, 'Org', $2)`, [org, `k${org.slice(0, 8)}`]);
    const former = [
      'portal:user:createItem',
      'portal:user:createGroup',
      'portal:user:shareToGroup',
      'portal:user:shareToOrg',
      'portal:user:shareToPublic',
      'portal:user:joinGroup',
      'portal:publisher:publishFeatures',
      'portal:admin:shareToGroup',
      'portal:admin:viewItems',
      'portal:admin:deleteItems',
      'portal:admin:viewGroups',
      'portal:admin:updateGroups',
      'portal:admin:updateItems',
      'portal:admin:manageUsers',
      'portal:admin:manageRoles',
    ];
    const roles = {
      full: former,
      lesser: former.filter((p) => p !== 'portal:admin:manageRoles'),
      already: [...former, 'portal:admin:viewUsers'],
    };
    const ids: Record<string, string> = {};
    for (const [name, privileges] of Object.entries(roles)) {
      ids[name] = id();
      await ds.query(`INSERT INTO roles (id, org_id, name, description, privileges) VALUES ($1, $2, $3, '', $4)`, [
        ids[name],
        org,
        name,
        privileges,
      ]);
    }
    await ds.runMigrations();
    const after = async (name: string) =>
      (await ds.query(`SELECT privileges FROM roles WHERE id = $1`, [ids[name]]))[0].privileges as string[];
    const added = ['portal:admin:reassignItems', 'portal:admin:viewUsers', 'portal:admin:updateUsers'];
    expect(await after('full')).toEqual([...former, ...added]);
    expect(await after('lesser')).toEqual(roles.lesser);
    expect(await after('already')).toEqual([...former, 'portal:admin:viewUsers', 'portal:admin:reassignItems', 'portal:admin:updateUsers']);
    await undoThroughAdminPrivileges();
    expect(await after('full')).toEqual(former);
    expect(await after('lesser')).toEqual(roles.lesser);
  });
});

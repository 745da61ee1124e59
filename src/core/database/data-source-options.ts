import { DataSourceOptions } from 'typeorm';
import { ItemEntity } from '../../content/item.entity';
import { GroupEntity, GroupMemberEntity } from '../../groups/group.entities';
import { OrgEntity, RoleEntity, TokenEntity, UserEntity } from '../../identity/identity.entities';
import { migrations } from '../../migrations';
import { ItemShareEntity } from '../../sharing/item-share.entity';

export const entities = [OrgEntity, RoleEntity, UserEntity, TokenEntity, ItemEntity, GroupEntity, GroupMemberEntity, ItemShareEntity];

/** One definition for the app, the migration CLI (ormconfig.ts) and the tests. Schema changes go through migrations only. */
export function dataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    extra: { max: 10, connectionTimeoutMillis: 5000 },
  };
}

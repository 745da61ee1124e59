import { ItemEntity } from './content/item.entity';
import { ItemUploadEntity, ItemUploadPartEntity } from './content/item-upload.entity';
import { FolderEntity } from './folders/folder.entity';
import { GroupEntity, GroupMemberEntity } from './groups/group.entities';
import { OrgEntity, RoleEntity, TokenEntity, UserEntity } from './identity/identity.entities';
import { ItemShareEntity } from './sharing/item-share.entity';

/** Every TypeORM entity. Listed here, beside the composition roots, so core's database module takes it as a parameter. */
export const entities = [
  OrgEntity,
  RoleEntity,
  UserEntity,
  TokenEntity,
  ItemEntity,
  GroupEntity,
  GroupMemberEntity,
  ItemShareEntity,
  FolderEntity,
  ItemUploadEntity,
  ItemUploadPartEntity,
];

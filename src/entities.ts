import { FeatureAttachmentEntity } from './attachments/attachment.entity';
import { ItemFileEntity } from './content/item-file.entity';
import { ItemEntity } from './content/item.entity';
import { ItemUploadEntity, ItemUploadPartEntity } from './content/item-upload.entity';
import { FolderEntity } from './folders/folder.entity';
import { GroupApplicationEntity, GroupEntity, GroupInvitationEntity, GroupMemberEntity } from './groups/group.entities';
import { OrgEntity, RoleEntity, TokenEntity, UserEntity } from './identity/identity.entities';
import { ItemRelationshipEntity } from './relationships/item-relationship.entity';
import { NotificationEntity } from './notifications/notification.entity';
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
  GroupApplicationEntity,
  GroupInvitationEntity,
  ItemShareEntity,
  ItemFileEntity,
  ItemRelationshipEntity,
  NotificationEntity,
  FolderEntity,
  ItemUploadEntity,
  ItemUploadPartEntity,
  FeatureAttachmentEntity,
];

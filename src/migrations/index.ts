import { Init1732240000000 } from './1732240000000-Init';
import { FeatureServices1732250000000 } from './1732250000000-FeatureServices';
import { Jobs1732260000000 } from './1732260000000-Jobs';
import { TokenHardening1732272000000 } from './1732272000000-TokenHardening';
import { JobKinds1732280000000 } from './1732280000000-JobKinds';
import { ItemViews1732290000000 } from './1732290000000-ItemViews';
import { JsonNumbers1732300000000 } from './1732300000000-JsonNumbers';
import { JsonOrdinate1732310000000 } from './1732310000000-JsonOrdinate';
import { FeatureDataVersions1732320000000 } from './1732320000000-FeatureDataVersions';
import { ItemTextSearch1732335000000 } from './1732335000000-ItemTextSearch';
import { ItemDetails1732400000000 } from './1732400000000-ItemDetails';
import { GroupMembership1732420000000 } from './1732420000000-GroupMembership';
import { UserProfiles1732430000000 } from './1732430000000-UserProfiles';
import { Notifications1732431000000 } from './1732431000000-Notifications';
import { AdminPrivileges1732440000000 } from './1732440000000-AdminPrivileges';
import { Folders1732410000000 } from './1732410000000-Folders';
import { ItemUploads1732411000000 } from './1732411000000-ItemUploads';
import { FeatureAttachments1732470000000 } from './1732470000000-FeatureAttachments';
import { FeatureViews1732480000000 } from './1732480000000-FeatureViews';
import { LayerAdmin1732490000000 } from './1732490000000-LayerAdmin';
import { Webhooks1732500000000 } from './1732500000000-Webhooks';
import { JobsByOwner1732520000000 } from './1732520000000-JobsByOwner';
import { ServiceCacheMaxAge1732540000000 } from './1732540000000-ServiceCacheMaxAge';
import { DataVersionFunction1732541000000 } from './1732541000000-DataVersionFunction';

/** Listed explicitly so the CLI, the tests and the build all load the same classes, in order. */
export const migrations = [
  Init1732240000000,
  FeatureServices1732250000000,
  Jobs1732260000000,
  TokenHardening1732272000000,
  JobKinds1732280000000,
  ItemViews1732290000000,
  JsonNumbers1732300000000,
  JsonOrdinate1732310000000,
  FeatureDataVersions1732320000000,
  ItemTextSearch1732335000000,
  ItemDetails1732400000000,
  Folders1732410000000,
  ItemUploads1732411000000,
  GroupMembership1732420000000,
  UserProfiles1732430000000,
  Notifications1732431000000,
  AdminPrivileges1732440000000,
  FeatureAttachments1732470000000,
  FeatureViews1732480000000,
  LayerAdmin1732490000000,
  Webhooks1732500000000,
  JobsByOwner1732520000000,
  ServiceCacheMaxAge1732540000000,
  DataVersionFunction1732541000000,
];

import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { ExportModule } from '../export/export.module';
import { FeatureServerModule } from '../feature-server/feature-server.module';
import { GroupsModule } from '../groups/groups.module';
import { IdentityModule } from '../identity/identity.module';
import { LayersModule } from '../layers/layers.module';
import { CatalogController } from './catalog.controller';
import { DirectoryController } from './directory.controller';
import { DirectoryRepository } from './directory.repository';
import { GroupPagesController } from './group-pages.controller';
import { HomePagesController } from './home.controller';
import { ShareTargets } from './share-targets';
import { PortalPagesController } from './portal.controller';

/** The services catalog, the HTML services directory over the hosted feature services, and the portal's pages. */
@Module({
  imports: [FeatureServerModule, LayersModule, ContentModule, GroupsModule, IdentityModule, ExportModule],
  controllers: [CatalogController, DirectoryController, PortalPagesController, HomePagesController, GroupPagesController],
  providers: [DirectoryRepository, ShareTargets],
})
export class PagesModule {}

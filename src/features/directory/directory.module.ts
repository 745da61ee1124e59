import { Module } from '@nestjs/common';
import { FeaturesModule } from '../features.module';
import { CatalogController } from './catalog.controller';
import { DirectoryController } from './directory.controller';
import { DirectoryRepository } from './directory.repository';

/** The services catalog and the HTML services directory over the hosted feature services. */
@Module({
  imports: [FeaturesModule],
  controllers: [CatalogController, DirectoryController],
  providers: [DirectoryRepository],
})
export class DirectoryModule {}

import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { LayersRepository } from './layers.repository';

/** The hosted feature services' and layers' metadata, read by the FeatureServer routes, publish, export and the pages. */
@Module({
  imports: [ContentModule],
  providers: [LayersRepository],
  exports: [LayersRepository],
})
export class LayersModule {}

import { Module } from '@nestjs/common';
import { FeatureController } from './feature-server.controller';
import { FeatureServerModule } from './feature-server.module';

/**
 * The feature resource, FeatureServer/<layer>/<oid>: its own module so that AppModule can register its route after
 * every fixed operation at that depth (FeatureController says why).
 */
@Module({
  imports: [FeatureServerModule],
  controllers: [FeatureController],
})
export class FeatureResourceModule {}

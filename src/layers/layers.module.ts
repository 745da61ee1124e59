import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { ItemDeleteGuards } from '../content/delete-guards';
import { Errors } from '../core/errors/arcgis-error';
import { LayersRepository } from './layers.repository';

/** The hosted feature services' and layers' metadata, read by the FeatureServer routes, publish, export and the pages. */
@Module({
  imports: [ContentModule],
  providers: [LayersRepository],
  exports: [LayersRepository],
})
export class LayersModule {
  constructor(guards: ItemDeleteGuards, repo: LayersRepository) {
    // ArcGIS refuses to delete a hosted feature layer while views of it exist: the views go first.
    guards.register(async (itemId) => {
      const views = await repo.viewsOf(itemId);
      return views.length
        ? Errors.badRequest('Unable to delete item. This service item has a related Service item', [
            `Delete its views first: ${views.join(', ')}.`,
          ])
        : null;
    });
  }
}

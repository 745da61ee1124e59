import { Controller, Inject, Req, UseFilters } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { Formats, Operation, OptionalCaller, PageLink, Public } from '../core/http/decorators';
import { DirectoryRepository } from './directory.repository';
import { HtmlWhenAskedErrorsFilter } from './html-errors.filter';
import { pageContext } from './page-context';
import { catalogPage } from './service-pages';

/**
 * The services catalog, where ArcGIS Pro, QGIS and people start browsing: the hosted services the caller may open,
 * in ArcGIS's shape. Hosted services have no folders here. `url` is what ArcGIS Online adds to each entry.
 */
@Controller('arcgis/rest/services')
@UseFilters(HtmlWhenAskedErrorsFilter)
export class CatalogController {
  constructor(
    private readonly directory: DirectoryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @PageLink()
  @Formats('html')
  @Operation('')
  async catalog(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    const names = await this.directory.visibleServiceNames(caller);
    const services = names.map((name) => ({ name, type: 'FeatureServer' }));
    if (req.arcParams.f === 'html') return catalogPage(pageContext(req, this.config), services);
    const root = publicRoot(req, this.config);
    return {
      currentVersion: 11.1,
      folders: [],
      services: services.map((s) => ({ ...s, url: `${root}/arcgis/rest/services/${s.name}/FeatureServer` })),
    };
  }
}

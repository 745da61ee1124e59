import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { ContentModule } from './content/content.module';
import { ContentRepository } from './content/content.repository';
import { CoreModule } from './core/core.module';
import { AppConfig } from './core/config/env';
import { RequestPoolsModule } from './core/database/request-pools.module';
import { ArcgisExceptionFilter } from './core/errors/arcgis-exception.filter';
import { FormatInterceptor } from './core/http/format';
import { RequestClientInterceptor } from './core/http/request-client';
import { entities } from './entities';
import { ExportModule } from './export/export.module';
import { FeatureResourceModule } from './feature-server/feature-resource.module';
import { FeatureServerModule } from './feature-server/feature-server.module';
import { FoldersModule } from './folders/folders.module';
import { GroupsModule } from './groups/groups.module';
import { AuthGuard } from './identity/auth.guard';
import { IdentityModule } from './identity/identity.module';
import { jobKinds } from './jobs';
import { migrations } from './migrations';
import { NotificationsModule } from './notifications/notifications.module';
import { WebhooksModule } from './webhooks';
import { OpsModule } from './ops/ops.module';
import { PagesModule } from './pages/pages.module';
import { PublishModule } from './publish/publish.module';
import { RelationshipsModule } from './relationships/relationships.module';
import { SharingModule } from './sharing/sharing.module';

/**
 * The HTTP API process: controllers, and in one place what wraps every route (the request guard, the ArcGIS error
 * filter, the reply formatter, the client context the connection gates count by). No queue processors here.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, { entities, migrations, jobs: jobKinds, resultItems: ContentRepository }),
        RequestPoolsModule,
        IdentityModule,
        ContentModule,
        GroupsModule,
        SharingModule,
        RelationshipsModule,
        FeatureServerModule,
        PublishModule,
        PagesModule,
        ExportModule,
        OpsModule,
        NotificationsModule,
        // After PagesModule: FeatureServer/<layer>/<oid> would take the pages' FeatureServer/<layer>/preview.
        FeatureResourceModule,
        WebhooksModule,
        // Last: its content/users/<u>/<folderId> routes must come after every fixed operation at that depth.
        FoldersModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ArcgisExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: FormatInterceptor },
        { provide: APP_INTERCEPTOR, useClass: RequestClientInterceptor },
      ],
    };
  }
}

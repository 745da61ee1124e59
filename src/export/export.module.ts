import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { IdentityModule } from '../identity/identity.module';
import { LayersModule } from '../layers/layers.module';
import { ExportAccess } from './export-access';
import { ExportHistoryRepository } from './export-history.repository';
import { ExportController } from './export.controller';
import { ExportRepository } from './export.repository';
import { ExportService } from './export.service';

/** The API side of exports: validate, record, enqueue. The processor is in export/worker, loaded by the worker only. */
@Module({
  imports: [IdentityModule, ContentModule, LayersModule],
  controllers: [ExportController],
  providers: [ExportRepository, ExportService, ExportAccess, ExportHistoryRepository],
  exports: [ExportService],
})
export class ExportModule {}

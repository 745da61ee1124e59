import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { SharingController } from './sharing.controller';
import { SharingRepository } from './sharing.repository';
import { SharingService } from './sharing.service';

@Module({
  imports: [IdentityModule],
  controllers: [SharingController],
  providers: [SharingRepository, SharingService],
  // Reassigning items (folders module) takes them out of groups in its own transaction.
  exports: [SharingRepository],
})
export class SharingModule {}

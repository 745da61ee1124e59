import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { IdentityModule } from '../identity/identity.module';
import { RelationshipsController } from './relationships.controller';
import { RelationshipsRepository } from './relationships.repository';
import { RelationshipsService } from './relationships.service';

/** Relationships between items (addRelationship, deleteRelationship, relatedItems). */
@Module({
  imports: [IdentityModule, ContentModule],
  controllers: [RelationshipsController],
  providers: [RelationshipsRepository, RelationshipsService],
})
export class RelationshipsModule {}

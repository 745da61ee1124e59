import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { ItemIdPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { RelatedItemsDto, RelationshipDto } from './relationships.dto';
import { RelationshipsService } from './relationships.service';

@Controller('sharing/rest')
export class RelationshipsController {
  constructor(private readonly relationships: RelationshipsService) {}

  @Post('content/users/:user/addRelationship')
  add(@CurrentCaller() caller: Caller, @Param('user', UsernamePipe) user: string, @Params(RelationshipDto) p: RelationshipDto) {
    return this.relationships.add(caller, user, p);
  }

  @Post('content/users/:user/deleteRelationship')
  delete(@CurrentCaller() caller: Caller, @Param('user', UsernamePipe) user: string, @Params(RelationshipDto) p: RelationshipDto) {
    return this.relationships.delete(caller, user, p);
  }

  @Public()
  @Operation('content/items/:id/relatedItems')
  related(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string, @Params(RelatedItemsDto) p: RelatedItemsDto) {
    return this.relationships.related(caller, id, p);
  }
}

import { Controller, Param } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { Operation, OptionalCaller, Public } from '../core/http/decorators';
import { ItemIdPipe } from '../core/http/id-params';
import { ItemGroupsService } from './item-groups.service';

@Controller('sharing/rest')
export class ItemGroupsController {
  constructor(private readonly itemGroups: ItemGroupsService) {}

  @Public()
  @Operation('content/items/:id/groups')
  groups(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string) {
    return this.itemGroups.itemGroups(caller, id);
  }
}

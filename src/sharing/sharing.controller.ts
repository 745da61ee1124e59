import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { CurrentCaller } from '../core/http/decorators';
import { ItemIdPipe, OwnerItem, OwnerItemPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { ShareDto, ShareItemsDto, UnshareDto, UnshareItemsDto } from './sharing.dto';
import { ItemResult, SharingService } from './sharing.service';

/** The per-item routes answer a missing item with a top-level error, as ArcGIS does. */
function single(r: ItemResult, key: 'notSharedWith' | 'notUnsharedFrom') {
  if (r.error?.code === 500) throw Errors.itemNotFound(r.itemId);
  if (r.capped && r.error) throw Errors.badRequest(r.error.message, [`Item '${r.itemId}' was not shared with any group.`]);
  return { [key]: r.notGroups, itemId: r.itemId };
}

function batch(results: ItemResult[], key: 'notSharedWith' | 'notUnsharedFrom') {
  return {
    results: results.map((r) => ({ itemId: r.itemId, success: r.success, [key]: r.notGroups, ...(r.error ? { error: r.error } : {}) })),
  };
}

@Controller('sharing/rest')
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Post('content/users/:owner/unshareItems')
  async unshareItems(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Params(UnshareItemsDto) p: UnshareItemsDto,
  ) {
    return batch(await this.sharing.unshare(caller, owner, p.items, p.groups), 'notUnsharedFrom');
  }

  @Post('content/users/:owner/shareItems')
  async shareItems(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(ShareItemsDto) p: ShareItemsDto) {
    return batch(await this.sharing.share(caller, owner, p.items, p), 'notSharedWith');
  }

  @Post('content/users/:owner/items/:id/unshare')
  async unshareAsOwner(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem, @Params(UnshareDto) p: UnshareDto) {
    return single((await this.sharing.unshare(caller, owner, [id], p.groups))[0], 'notUnsharedFrom');
  }

  @Post('content/users/:owner/items/:id/share')
  async shareAsOwner(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem, @Params(ShareDto) p: ShareDto) {
    return single((await this.sharing.share(caller, owner, [id], p))[0], 'notSharedWith');
  }

  @Post('content/items/:id/unshare')
  async unshareAsGroupAdmin(@CurrentCaller() caller: Caller, @Param('id', ItemIdPipe) id: string, @Params(UnshareDto) p: UnshareDto) {
    return single((await this.sharing.unshare(caller, null, [id], p.groups))[0], 'notUnsharedFrom');
  }

  @Post('content/items/:id/share')
  async shareAsGroupAdmin(@CurrentCaller() caller: Caller, @Param('id', ItemIdPipe) id: string, @Params(ShareDto) p: ShareDto) {
    return single((await this.sharing.share(caller, null, [id], p))[0], 'notSharedWith');
  }
}

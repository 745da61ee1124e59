import { Controller, Post, Req } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller } from '../core/http/decorators';
import { itemIdParam, usernameParam } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { ShareDto, ShareItemsDto, UnshareDto, UnshareItemsDto } from './sharing.dto';
import { ItemResult, SharingService } from './sharing.service';

const owner = (req: ArcgisRequest) => usernameParam(req.params.owner as string);
const item = (req: ArcgisRequest) => itemIdParam(req.params.id as string);

/** The per-item routes answer a missing item with a top-level error, as ArcGIS does. */
function single(r: ItemResult, key: 'notSharedWith' | 'notUnsharedFrom') {
  if (r.error?.code === 500) throw Errors.itemNotFound(r.itemId);
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
  async unshareItems(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(UnshareItemsDto) p: UnshareItemsDto) {
    return batch(await this.sharing.unshare(caller, owner(req), p.items, p.groups), 'notUnsharedFrom');
  }

  @Post('content/users/:owner/shareItems')
  async shareItems(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(ShareItemsDto) p: ShareItemsDto) {
    return batch(await this.sharing.share(caller, owner(req), p.items, p), 'notSharedWith');
  }

  @Post('content/users/:owner/items/:id/unshare')
  async unshareAsOwner(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(UnshareDto) p: UnshareDto) {
    return single((await this.sharing.unshare(caller, owner(req), [item(req)], p.groups))[0], 'notUnsharedFrom');
  }

  @Post('content/users/:owner/items/:id/share')
  async shareAsOwner(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(ShareDto) p: ShareDto) {
    return single((await this.sharing.share(caller, owner(req), [item(req)], p))[0], 'notSharedWith');
  }

  @Post('content/items/:id/unshare')
  async unshareAsGroupAdmin(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(UnshareDto) p: UnshareDto) {
    return single((await this.sharing.unshare(caller, null, [item(req)], p.groups))[0], 'notUnsharedFrom');
  }

  @Post('content/items/:id/share')
  async shareAsGroupAdmin(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(ShareDto) p: ShareDto) {
    return single((await this.sharing.share(caller, null, [item(req)], p))[0], 'notSharedWith');
  }
}

import { Controller, Param, Post, Req } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, GetOrPost, Operation, PageLink } from '../core/http/decorators';
import { OwnerItem, OwnerItemPipe, UsernamePipe } from '../core/http/id-params';
import { ID_PATTERN } from '../core/ids';
import { Params } from '../core/http/params.decorator';
import { AddItemDto, PageDto } from '../content/content.dto';
import { CreateFolderDto, MoveItemDto, MoveItemsDto, ReassignItemDto, ReassignItemsDto } from './folders.dto';
import { FoldersService, ITEM_MISSING, MoveResult, ReassignResult } from './folders.service';

/**
 * `content/users/<u>/<folderId>` shares its shape with every fixed operation under a user (addItem, shareItems,
 * publish, ...): FoldersModule is imported last so those are matched first, and a segment that is no folder id is
 * an unknown URL here too.
 */
function folderIdParam(req: ArcgisRequest, folderId: string): string {
  if (!ID_PATTERN.test(folderId)) throw Errors.invalidUrl(req.path);
  return folderId.toLowerCase();
}

/** The single-item routes answer a missing item with a top-level error, as ArcGIS does. */
function single(r: MoveResult) {
  if (r.error === ITEM_MISSING) throw Errors.itemNotFound(r.itemId);
  if (r.error) throw Errors.badRequest(r.error.message, [`Item '${r.itemId}'.`]);
}

const batch = (results: (MoveResult | ReassignResult)[]) => ({ results });

@Controller('sharing/rest/content/users/:owner')
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Post('createFolder')
  create(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(CreateFolderDto) p: CreateFolderDto) {
    return this.folders.create(caller, owner, p.title);
  }

  @Post('moveItems')
  async moveItems(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(MoveItemsDto) p: MoveItemsDto) {
    return batch(await this.folders.move(caller, owner, p.items, p.folder));
  }

  @Post('items/:id/move')
  async move(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem, @Params(MoveItemDto) p: MoveItemDto) {
    const [r] = await this.folders.move(caller, owner, [id], p.folder);
    single(r);
    return { success: true, itemId: id, owner, folder: await this.folders.folderIdOf(caller, owner, p.folder) };
  }

  @Post('items/:id/reassign')
  async reassign(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Params(ReassignItemDto) p: ReassignItemDto,
  ) {
    const [r] = await this.folders.reassign(caller, owner, [id], p.targetUsername, p.targetFolderName);
    single(r);
    const { unsharedFrom, unsharedFromEveryone, unsharedFromOrg } = r;
    return { success: true, itemId: id, unsharedFrom, unsharedFromEveryone, unsharedFromOrg };
  }

  /** Our extension: ArcGIS Online reassigns one item a request. */
  @Post('reassignItems')
  async reassignItems(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Params(ReassignItemsDto) p: ReassignItemsDto,
  ) {
    return batch(await this.folders.reassign(caller, owner, p.items, p.targetUsername, p.targetFolderName ?? p.targetFoldername));
  }

  @PageLink()
  @Operation('')
  root(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(PageDto) page: PageDto) {
    return this.folders.rootContent(caller, owner, page);
  }

  @Post(':folderId/addItem')
  addItem(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Param('folderId') folderId: string,
    @Req() req: ArcgisRequest,
    @Params(AddItemDto) p: AddItemDto,
  ) {
    return this.folders.addItem(caller, owner, folderIdParam(req, folderId), p, req.uploadedFile);
  }

  @Post(':folderId/delete')
  delete(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Param('folderId') folderId: string,
    @Req() req: ArcgisRequest,
  ) {
    return this.folders.delete(caller, owner, folderIdParam(req, folderId));
  }

  @PageLink()
  @GetOrPost(':folderId')
  folder(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Param('folderId') folderId: string,
    @Req() req: ArcgisRequest,
    @Params(PageDto) page: PageDto,
  ) {
    return this.folders.folderContent(caller, owner, folderIdParam(req, folderId), page);
  }
}

import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, OptionalCaller, Operation, PageLink, Public, RawResponse } from '../core/http/decorators';
import { ItemIdPipe, OwnerItem, OwnerItemPipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { FileStore } from '../core/storage/file-store';
import { fileNotFound, sendItemFile } from './item-file-reply';
import { ItemResourcesService } from './item-resources.service';
import { RemoveResourcesDto, ResourceDto, ResourcesPageDto, UpdateInfoDto, UpdateItemDto } from './item-update.dto';
import { ItemUpdateService } from './item-update.service';
import { checkFolderSegment } from './item-folder';

/** Express 5 gives a named wildcard as its segments. */
const joined = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join('/') : (v ?? ''));

/** Update Item and an item's thumbnail, info files, resources and delete protection. */
@Controller('sharing/rest')
export class ItemDetailsController {
  constructor(
    private readonly updates: ItemUpdateService,
    private readonly resources: ItemResourcesService,
    private readonly files: FileStore,
  ) {}

  /** arcgis-rest-js puts the item's folder in the path when it is given one (updateItem's folderId). */
  @Post(['content/users/:owner/items/:id/update', 'content/users/:owner/:folder/items/:id/update'])
  update(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Param('folder') folder: string | undefined,
    @Req() req: ArcgisRequest,
    @Params(UpdateItemDto) p: UpdateItemDto,
  ) {
    if (folder !== undefined) checkFolderSegment(folder);
    return this.updates.update(caller, owner, id, p, req.uploadedFile);
  }

  @Post('content/users/:owner/items/:id/deleteThumbnail')
  deleteThumbnail(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.updates.deleteThumbnail(caller, owner, id);
  }

  @Post('content/users/:owner/items/:id/protect')
  protect(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.updates.setProtected(caller, owner, id, true);
  }

  @Post('content/users/:owner/items/:id/unprotect')
  unprotect(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.updates.setProtected(caller, owner, id, false);
  }

  @Post('content/users/:owner/items/:id/updateinfo')
  updateInfo(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Req() req: ArcgisRequest,
    @Params(UpdateInfoDto) p: UpdateInfoDto,
  ) {
    return this.updates.updateInfo(caller, owner, id, p, req.uploadedFile);
  }

  /** iteminfo.xml, metadata/metadata.xml, thumbnail/<name> and files sent with updateinfo. */
  @Public()
  @PageLink()
  @RawResponse()
  @Operation('content/items/:id/info/*path')
  async info(
    @OptionalCaller() caller: Caller | undefined,
    @Param('id', ItemIdPipe) id: string,
    @Param('path') path: string | string[],
    @Res() res: Response,
  ) {
    const p = joined(path);
    await sendItemFile(this.files, await this.updates.info(caller, id, p), res, () => fileNotFound('File', p));
  }

  /** addResources and updateResources take the same parameters: the last path segment says which it is. */
  @Post(['content/users/:owner/items/:id/addResources', 'content/users/:owner/items/:id/updateResources'])
  putResource(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Req() req: ArcgisRequest,
    @Params(ResourceDto) p: ResourceDto,
  ) {
    const file = req.uploadedFile;
    if (/\/addResources\/?$/.test(req.path)) return this.resources.add(caller, owner, id, p, file);
    return this.resources.update(caller, owner, id, p, file);
  }

  @Post('content/users/:owner/items/:id/removeResources')
  removeResources(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Params(RemoveResourcesDto) p: RemoveResourcesDto,
  ) {
    return this.resources.remove(caller, owner, id, p);
  }

  @Public()
  @Operation('content/items/:id/resources')
  listResources(
    @OptionalCaller() caller: Caller | undefined,
    @Param('id', ItemIdPipe) id: string,
    @Params(ResourcesPageDto) p: ResourcesPageDto,
  ) {
    return this.resources.list(caller, id, p);
  }

  @Public()
  @PageLink()
  @RawResponse()
  @Operation('content/items/:id/resources/*path')
  async resource(
    @OptionalCaller() caller: Caller | undefined,
    @Param('id', ItemIdPipe) id: string,
    @Param('path') path: string | string[],
    @Res() res: Response,
  ) {
    const p = joined(path);
    await sendItemFile(this.files, await this.resources.read(caller, id, p), res, () => fileNotFound('Resource', p));
  }
}

import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PageDto, SearchDto } from '../content/content.dto';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, PageLink, Public, RawResponse } from '../core/http/decorators';
import { GroupIdPipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { sendStoredFile } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';
import { CategorySchemaDto, CreateGroupDto, GroupSearchDto, UpdateGroupDto } from './groups.dto';
import { GroupsService } from './groups.service';

@Controller('sharing/rest')
export class GroupsController {
  constructor(
    private readonly groups: GroupsService,
    private readonly files: FileStore,
  ) {}

  @Post('community/createGroup')
  create(@CurrentCaller() caller: Caller, @Params(CreateGroupDto) p: CreateGroupDto) {
    return this.groups.create(caller, p);
  }

  @Public()
  @Operation('community/groups')
  searchGroups(@OptionalCaller() caller: Caller | undefined, @Params(GroupSearchDto) p: GroupSearchDto) {
    return this.groups.searchGroups(caller, p);
  }

  @Public()
  @PageLink()
  @Operation('community/groups/:id')
  info(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string) {
    return this.groups.info(caller, id);
  }

  @Public()
  @Operation('content/groups/:id')
  content(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string, @Params(PageDto) page: PageDto) {
    return this.groups.content(caller, id, page);
  }

  /** Searching a group's content needs the group to be visible first, as its content listing does. */
  @Public()
  @Operation('content/groups/:id/search')
  search(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string, @Params(SearchDto) p: SearchDto) {
    return this.groups.search(caller, id, p);
  }

  @Post('community/groups/:id/update')
  update(
    @CurrentCaller() caller: Caller,
    @Param('id', GroupIdPipe) id: string,
    @Req() req: ArcgisRequest,
    @Params(UpdateGroupDto) p: UpdateGroupDto,
  ) {
    return this.groups.update(caller, id, p, req.uploadedFile);
  }

  @Post('community/groups/:id/protect')
  protect(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.groups.setProtected(caller, id, true);
  }

  @Post('community/groups/:id/unprotect')
  unprotect(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.groups.setProtected(caller, id, false);
  }

  @Post('community/groups/:id/delete')
  delete(@CurrentCaller() caller: Caller, @Param('id', GroupIdPipe) id: string) {
    return this.groups.delete(caller, id);
  }

  /** The thumbnail, with the type of the image it is and nosniff, whatever `f` says (as item data is served). */
  @Public()
  @PageLink()
  @RawResponse()
  @Operation('community/groups/:id/info/:name')
  async thumbnail(
    @OptionalCaller() caller: Caller | undefined,
    @Param('id', GroupIdPipe) id: string,
    @Param('name') name: string,
    @Res() res: Response,
  ) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const file = await this.groups.thumbnail(caller, id, name);
    res.setHeader('Content-Type', file.contentType);
    await sendStoredFile(this.files, file, res.req, res);
  }

  @Public()
  @Operation('community/groups/:id/categorySchema')
  categorySchema(@OptionalCaller() caller: Caller | undefined, @Param('id', GroupIdPipe) id: string) {
    return this.groups.categorySchema(caller, id);
  }

  @Post('community/groups/:id/assignCategorySchema')
  assignCategorySchema(
    @CurrentCaller() caller: Caller,
    @Param('id', GroupIdPipe) id: string,
    @Params(CategorySchemaDto) p: CategorySchemaDto,
  ) {
    return this.groups.assignCategorySchema(caller, id, p);
  }
}

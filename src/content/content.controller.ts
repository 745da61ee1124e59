import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { keepValidators } from '../core/http/cache';
import { CurrentCaller, Operation, OptionalCaller, PageLink, Public, RawResponse } from '../core/http/decorators';
import { ItemIdPipe, OwnerItem, OwnerItemPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddItemDto, SearchDto, StatusDto } from './content.dto';
import { ContentService } from './content.service';
import { sendStoredFile } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';

/** RFC 6266 / 5987: an ASCII fallback plus the exact UTF-8 name. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

@Controller('sharing/rest')
export class ContentController {
  constructor(
    private readonly content: ContentService,
    private readonly files: FileStore,
  ) {}

  // Folders, and the user content listings that show them, are the folders module's (content/users/<u>/<folder>/...).
  @Post('content/users/:owner/addItem')
  addItem(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Req() req: ArcgisRequest,
    @Params(AddItemDto) p: AddItemDto,
  ) {
    return this.content.addItem(caller, owner, p, req.uploadedFile);
  }

  @Public()
  @PageLink()
  @Operation('content/items/:id')
  item(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string) {
    return this.content.item(caller, id);
  }

  /**
   * Files stream with their item type's Content-Type and name whatever `f` says, as ArcGIS does; JSON data goes back as
   * stored. Every reply (ranges, 304s, redirects to the bucket) says nosniff, so no browser reads a file as a script or
   * a page whatever its bytes; files are attachments, so none opens as a page of this origin.
   */
  @Public()
  @PageLink()
  @RawResponse()
  @Operation('content/items/:id/data')
  async data(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string, @Res() res: Response) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const data = await this.content.data(caller, id, !res.req.headers.range);
    if (data.kind === 'file') {
      res.setHeader('Content-Type', data.contentType);
      res.setHeader('Content-Disposition', contentDisposition(data.fileName));
      // A multi-GB export must resume: Range/206, If-Range and If-None-Match are answered from the file's ETag and
      // Last-Modified, always with Content-Length (sendStoredFile, for either backend). The validators stay on
      // signed-in downloads too (cache.ts), where nothing may store the reply but a resume needs them.
      keepValidators(res);
      await sendStoredFile(this.files, data, res.req, res);
    } else if (data.kind === 'json') {
      res.status(200).type('application/json').send(data.text);
    } else {
      res.status(200).end();
    }
  }

  @Post('content/users/:owner/items/:id/delete')
  delete(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.content.deleteItem(caller, owner, id);
  }

  @Operation('content/users/:owner/items/:id/status')
  status(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem, @Params(StatusDto) p: StatusDto) {
    return this.content.status(caller, owner, id, p);
  }

  @Operation('community/users/:owner/tags')
  userTags(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string) {
    return this.content.userTags(caller, owner);
  }

  @Public()
  @Operation('search')
  search(@OptionalCaller() caller: Caller | undefined, @Params(SearchDto) p: SearchDto) {
    return this.content.search(caller, p);
  }
}

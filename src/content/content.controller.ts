import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, Public, RawResponse } from '../core/http/decorators';
import { itemIdParam, usernameParam } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddItemDto, PageDto, SearchDto, StatusDto } from './content.dto';
import { ContentService } from './content.service';

/** RFC 6266 / 5987: an ASCII fallback plus the exact UTF-8 name. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

@Controller('sharing/rest')
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Post('content/users/:owner/addItem')
  addItem(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(AddItemDto) p: AddItemDto) {
    return this.content.addItem(caller, usernameParam(req.params.owner as string), p, req.uploadedFile);
  }

  @Post('content/users/:owner/:folder/addItem')
  addItemInFolder(@Req() req: ArcgisRequest) {
    throw Errors.badRequest('Folder does not exist.', [
      `No folder '${String(req.params.folder).slice(0, 64)}'; add items to the root folder.`,
    ]);
  }

  @Operation('content/users/:owner')
  userContent(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(PageDto) page: PageDto) {
    return this.content.userContent(caller, usernameParam(req.params.owner as string), page);
  }

  @Public()
  @Operation('content/items/:id')
  item(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    return this.content.item(caller, itemIdParam(req.params.id as string));
  }

  /** Files stream with their type and name whatever `f` says, as ArcGIS does; JSON data goes back as stored. */
  @Public()
  @RawResponse()
  @Operation('content/items/:id/data')
  async data(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest, @Res() res: Response) {
    const data = await this.content.data(caller, itemIdParam(req.params.id as string));
    if (data.kind === 'file') {
      res.status(200).set({
        'Content-Type': data.contentType,
        'Content-Length': String(data.size),
        'Content-Disposition': contentDisposition(data.fileName),
      });
      data.stream.on('error', (err) => res.destroy(err));
      data.stream.pipe(res);
    } else if (data.kind === 'json') {
      res.status(200).type('application/json').send(data.text);
    } else {
      res.status(200).end();
    }
  }

  @Post('content/users/:owner/items/:id/delete')
  delete(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest) {
    return this.content.deleteItem(caller, usernameParam(req.params.owner as string), itemIdParam(req.params.id as string));
  }

  @Operation('content/users/:owner/items/:id/status')
  status(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(StatusDto) p: StatusDto) {
    return this.content.status(caller, usernameParam(req.params.owner as string), itemIdParam(req.params.id as string), p);
  }

  @Public()
  @Operation('search')
  search(@OptionalCaller() caller: Caller | undefined, @Params(SearchDto) p: SearchDto) {
    return this.content.search(caller, p);
  }
}

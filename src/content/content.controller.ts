import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { keepValidators } from '../core/http/cache';
import { CurrentCaller, Operation, OptionalCaller, Public, RawResponse } from '../core/http/decorators';
import { ItemIdPipe, OwnerItem, OwnerItemPipe, UsernamePipe } from '../core/http/id-params';
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
  addItem(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Req() req: ArcgisRequest,
    @Params(AddItemDto) p: AddItemDto,
  ) {
    return this.content.addItem(caller, owner, p, req.uploadedFile);
  }

  @Post('content/users/:owner/:folder/addItem')
  addItemInFolder(@Param('folder') folder: string) {
    throw Errors.badRequest('Folder does not exist.', [`No folder '${folder.slice(0, 64)}'; add items to the root folder.`]);
  }

  @Operation('content/users/:owner')
  userContent(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(PageDto) page: PageDto) {
    return this.content.userContent(caller, owner, page);
  }

  @Public()
  @Operation('content/items/:id')
  item(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string) {
    return this.content.item(caller, id);
  }

  /** Files stream with their type and name whatever `f` says, as ArcGIS does; JSON data goes back as stored. */
  @Public()
  @RawResponse()
  @Operation('content/items/:id/data')
  async data(@OptionalCaller() caller: Caller | undefined, @Param('id', ItemIdPipe) id: string, @Res() res: Response) {
    const data = await this.content.data(caller, id, !res.req.headers.range);
    if (data.kind === 'file') {
      res.setHeader('Content-Type', data.contentType);
      res.setHeader('Content-Disposition', contentDisposition(data.fileName));
      // Express's sendFile (the `send` library) answers Range with 206 and Content-Range, If-Range and If-None-Match
      // with the file's ETag and Last-Modified, and always sets Content-Length: a multi-GB export can resume. The
      // validators stay on signed-in downloads too (cache.ts), where nothing may store the reply but a resume needs them.
      keepValidators(res);
      await new Promise<void>((resolve, reject) =>
        res.sendFile(data.path, { dotfiles: 'allow', acceptRanges: true, lastModified: true, cacheControl: false }, (err) => {
          // A client that stops reading mid-file is not an error of ours; the connection is already gone.
          if (!err || res.headersSent) return resolve();
          // HTTP's own answers to a range past the end or a failed If-Match: range clients act on the status.
          const status = (err as { status?: number }).status;
          if (status === 416) res.status(416).set('Content-Range', `bytes */${data.size}`).end();
          else if (status === 412) res.status(412).end();
          else return reject(err);
          resolve();
        }),
      );
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

  @Public()
  @Operation('search')
  search(@OptionalCaller() caller: Caller | undefined, @Params(SearchDto) p: SearchDto) {
    return this.content.search(caller, p);
  }
}

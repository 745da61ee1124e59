import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, Public, RawResponse } from '../core/http/decorators';
import { UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { sendStoredFile } from '../core/storage/download';
import { FileStore } from '../core/storage/file-store';
import { CommunityUserSearchDto, OrgUserSearchDto, SetPropertiesDto, UpdateUserDto } from './identity.dto';
import { UsersService } from './users.service';

/** User search, profile updates, thumbnails and app settings (`community/users/*`, `portals/<id>/users/search`). */
@Controller('sharing/rest')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly files: FileStore,
  ) {}

  @Operation('community/users')
  searchCommunity(@CurrentCaller() caller: Caller, @Params(CommunityUserSearchDto) p: CommunityUserSearchDto) {
    return this.users.searchCommunity(caller, p);
  }

  @Operation('portals/:portalId/users/search')
  searchOrg(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(OrgUserSearchDto) p: OrgUserSearchDto) {
    return this.users.searchOrg(caller, portalId, p);
  }

  @Post('community/users/:username/update')
  update(
    @CurrentCaller() caller: Caller,
    @Param('username', UsernamePipe) username: string,
    @Req() req: ArcgisRequest,
    @Params(UpdateUserDto) p: UpdateUserDto,
  ) {
    return this.users.update(caller, username, p, req.uploadedFile);
  }

  @Operation('community/users/:username/properties')
  properties(@CurrentCaller() caller: Caller, @Param('username', UsernamePipe) username: string) {
    return this.users.properties(caller, username);
  }

  @Post('community/users/:username/setProperties')
  setProperties(
    @CurrentCaller() caller: Caller,
    @Param('username', UsernamePipe) username: string,
    @Params(SetPropertiesDto) p: SetPropertiesDto,
  ) {
    return this.users.setProperties(caller, username, p.properties);
  }

  /** The image with its own type, never sniffed, inline: browsers show it in an <img> of any page. */
  @Public()
  @RawResponse()
  @Operation('community/users/:username/info/:name')
  async info(
    @OptionalCaller() caller: Caller | undefined,
    @Param('username', UsernamePipe) username: string,
    @Param('name') name: string,
    @Res() res: Response,
  ) {
    const file = await this.users.thumbnail(caller, username, name);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Type', file.contentType);
    await sendStoredFile(this.files, file, res.req, res);
  }
}

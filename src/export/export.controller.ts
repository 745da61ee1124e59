import { Controller, Post, Req } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller } from '../core/http/decorators';
import { usernameParam } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { ExportItemDto } from './export.dto';
import { ExportService } from './export.service';

@Controller('sharing/rest/content/users/:owner')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Post('export')
  export(@CurrentCaller() caller: Caller, @Req() req: ArcgisRequest, @Params(ExportItemDto) p: ExportItemDto) {
    return this.exports.export(caller, usernameParam(String(req.params.owner)), p);
  }
}

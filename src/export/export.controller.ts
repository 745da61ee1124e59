import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller } from '../core/http/decorators';
import { UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { ExportItemDto } from './export.dto';
import { ExportService } from './export.service';

@Controller('sharing/rest/content/users/:owner')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Post('export')
  export(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(ExportItemDto) p: ExportItemDto) {
    return this.exports.export(caller, owner, p);
  }
}

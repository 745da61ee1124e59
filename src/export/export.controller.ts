import { Controller, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller } from '../core/http/decorators';
import { OwnerItem, OwnerItemPipe, UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { CancelJobDto, ExportItemDto } from './export.dto';
import { ExportService } from './export.service';

@Controller('sharing/rest/content/users/:owner')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Post('export')
  export(@CurrentCaller() caller: Caller, @Param('owner', UsernamePipe) owner: string, @Params(ExportItemDto) p: ExportItemDto) {
    return this.exports.export(caller, owner, p);
  }

  /** Not an ArcGIS operation (ArcGIS has no way to stop an export): named and shaped as its status operation is. */
  @Post('items/:id/cancelJob')
  cancelJob(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem, @Params(CancelJobDto) p: CancelJobDto) {
    return this.exports.cancel(caller, owner, id, p);
  }
}

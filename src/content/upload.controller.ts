import { Controller, Param, Post, Req } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { ArcgisRequest } from '../core/http/arcgis-request';
import { CurrentCaller, Operation } from '../core/http/decorators';
import { OwnerItem, OwnerItemPipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { AddPartDto } from './upload.dto';
import { UploadService } from './upload.service';

/** A multipart upload's routes; it starts with addItem multipart=true and is followed with the item's status route. */
@Controller('sharing/rest/content/users/:owner/items/:id')
export class UploadController {
  constructor(private readonly uploads: UploadService) {}

  @Post('addPart')
  addPart(
    @CurrentCaller() caller: Caller,
    @Param(OwnerItemPipe) { owner, id }: OwnerItem,
    @Params(AddPartDto) p: AddPartDto,
    @Req() req: ArcgisRequest,
  ) {
    return this.uploads.addPart(caller, owner, id, p.partNum, req.uploadedFile);
  }

  @Operation('parts')
  parts(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.uploads.parts(caller, owner, id);
  }

  @Post('commit')
  commit(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.uploads.commit(caller, owner, id);
  }

  @Post('cancel')
  cancel(@CurrentCaller() caller: Caller, @Param(OwnerItemPipe) { owner, id }: OwnerItem) {
    return this.uploads.cancel(caller, owner, id);
  }
}

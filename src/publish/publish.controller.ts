import { Controller, Inject, Param, Post, Req } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { CurrentCaller } from '../core/http/decorators';
import { UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import { PublishDto } from './publish.dto';
import { PublishRequestService } from './publish-request.service';

@Controller('sharing/rest/content/users/:owner')
export class PublishController {
  constructor(
    private readonly publishing: PublishRequestService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('publish')
  publish(
    @CurrentCaller() caller: Caller,
    @Param('owner', UsernamePipe) owner: string,
    @Req() req: ArcgisRequest,
    @Params(PublishDto) p: PublishDto,
  ) {
    return this.publishing.publish(caller, owner, p, publicRoot(req, this.config));
  }
}

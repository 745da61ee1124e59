import { Controller, Get, Param, Post } from '@nestjs/common';
import { Caller } from '../core/auth/caller';
import { CurrentCaller, Operation } from '../core/http/decorators';
import { Params } from '../core/http/params.decorator';
import { DeliveriesPageDto, RedeliverDto, WebhookDto, WebhookSettingsDto } from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

/** ArcGIS Enterprise's organisation webhooks; `settings` is declared before `<id>` so it is not taken for one. */
@Controller('sharing/rest/portals/:portalId/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Operation('')
  list(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(DeliveriesPageDto) page: DeliveriesPageDto) {
    return this.webhooks.list(caller, portalId, page);
  }

  @Post('createWebhook')
  create(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(WebhookDto) p: WebhookDto) {
    return this.webhooks.create(caller, portalId, p);
  }

  @Operation('settings')
  settings(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string) {
    return this.webhooks.settings(caller, portalId);
  }

  @Post('settings/update')
  updateSettings(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Params(WebhookSettingsDto) p: WebhookSettingsDto) {
    return this.webhooks.updateSettings(caller, portalId, p);
  }

  // GET and POST only, not @Operation: a PUT to a fixed operation (createWebhook) must stay an unknown URL.
  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string) {
    return this.webhooks.get(caller, portalId, id);
  }

  @Post(':id')
  getPost(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string) {
    return this.webhooks.get(caller, portalId, id);
  }

  @Post(':id/update')
  update(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string, @Params(WebhookDto) p: WebhookDto) {
    return this.webhooks.update(caller, portalId, id, p);
  }

  @Post(':id/delete')
  remove(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string) {
    return this.webhooks.remove(caller, portalId, id);
  }

  @Post(':id/activate')
  activate(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string) {
    return this.webhooks.setActive(caller, portalId, id, true);
  }

  @Post(':id/deactivate')
  deactivate(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string, @Param('id') id: string) {
    return this.webhooks.setActive(caller, portalId, id, false);
  }

  @Operation(':id/notificationStatus')
  notificationStatus(
    @CurrentCaller() caller: Caller,
    @Param('portalId') portalId: string,
    @Param('id') id: string,
    @Params(DeliveriesPageDto) page: DeliveriesPageDto,
  ) {
    return this.webhooks.notificationStatus(caller, portalId, id, page);
  }

  /** Our addition: sends one past delivery again (a new delivery id, the same event id). */
  @Post(':id/redeliver')
  redeliver(
    @CurrentCaller() caller: Caller,
    @Param('portalId') portalId: string,
    @Param('id') id: string,
    @Params(RedeliverDto) p: RedeliverDto,
  ) {
    return this.webhooks.redeliver(caller, portalId, id, p.deliveryId);
  }
}

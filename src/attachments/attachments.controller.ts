import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { sendItemFile } from '../content/item-file-reply';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { OptionalCaller, Operation, PageLink, Public, RawResponse } from '../core/http/decorators';
import { Params } from '../core/http/params.decorator';
import { FileStore } from '../core/storage/file-store';
import { AttachmentLayers } from './attachment-layers';
import { AddAttachmentDto, DeleteAttachmentsDto, QueryAttachmentsDto, UpdateAttachmentDto } from './attachments.dto';
import { AttachmentsService } from './attachments.service';

/**
 * A layer's attachments, beside its query and edits (the FeatureServer module declares this controller before its own,
 * so `<layer>/queryAttachments` is never read as a feature id). Reads follow the layer's query rules, writes its
 * edits' rules, through AttachmentLayers.
 */
@Controller('arcgis/rest/services/:name/FeatureServer')
export class AttachmentsController {
  constructor(
    private readonly layers: AttachmentLayers,
    private readonly attachments: AttachmentsService,
    private readonly files: FileStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @PageLink()
  @Operation(':layerId/queryAttachments')
  async query(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Params(QueryAttachmentsDto) p: QueryAttachmentsDto,
    @Req() req: ArcgisRequest,
  ) {
    const t = await this.layers.readable(caller, name, layerId);
    const base = `${publicRoot(req, this.config)}/arcgis/rest/services/${t.service.name}/FeatureServer/${t.layer.layer_id}`;
    return this.layers.run(caller, () => this.attachments.query(t, p, (oid, id) => `${base}/${oid}/attachments/${id}`));
  }

  @Public()
  @PageLink()
  @Operation(':layerId/:oid/attachments')
  async list(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('oid') oid: string,
  ) {
    const t = await this.layers.readable(caller, name, layerId);
    return this.layers.run(caller, () => this.attachments.list(t, oid));
  }

  /** The file, with our type for its extension, nosniff and a sandbox (sendItemFile), and HTTP ranges. */
  @Public()
  @PageLink()
  @RawResponse()
  @Operation(':layerId/:oid/attachments/:attachmentId')
  async download(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('oid') oid: string,
    @Param('attachmentId') attachmentId: string,
    @Res() res: Response,
  ) {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const t = await this.layers.readable(caller, name, layerId);
    const reply = await this.attachments.file(t, oid, attachmentId);
    await sendItemFile(this.files, reply, res, () => this.attachments.missing(oid, attachmentId));
  }

  @Public()
  @Post(':layerId/:oid/addAttachment')
  async add(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('oid') oid: string,
    @Params(AddAttachmentDto) p: AddAttachmentDto,
    @Req() req: ArcgisRequest,
  ) {
    const t = await this.layers.writable(caller, name, layerId, 'Update');
    return this.layers.run(caller, () => this.attachments.add(t, oid, req.uploadedFile, p.keywords, p.uploadId));
  }

  @Public()
  @Post(':layerId/:oid/updateAttachment')
  async update(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('oid') oid: string,
    @Params(UpdateAttachmentDto) p: UpdateAttachmentDto,
    @Req() req: ArcgisRequest,
  ) {
    const t = await this.layers.writable(caller, name, layerId, 'Update');
    return this.layers.run(caller, () => this.attachments.update(t, oid, p.attachmentId, req.uploadedFile, p.keywords, p.uploadId));
  }

  @Public()
  @Post(':layerId/:oid/deleteAttachments')
  async delete(
    @OptionalCaller() caller: Caller | undefined,
    @Param('name') name: string,
    @Param('layerId') layerId: string,
    @Param('oid') oid: string,
    @Params(DeleteAttachmentsDto) p: DeleteAttachmentsDto,
  ) {
    const t = await this.layers.writable(caller, name, layerId, 'Update');
    return this.layers.run(caller, () => this.attachments.deleteMany(t, oid, p.attachmentIds));
  }
}

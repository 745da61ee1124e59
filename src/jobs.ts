import { ExportJob } from './export/export.job';
import { PublishJob } from './publish/publish.job';
import { WebhookJob } from './webhooks/webhook.job';

/**
 * Every job kind. Listed here, beside the composition roots, so core's job module takes it as a parameter and the
 * worker its handlers: a new kind is its contract file and one line here (what its handler injects must be among the
 * worker's providers).
 */
export const jobKinds = [ExportJob, PublishJob, WebhookJob];

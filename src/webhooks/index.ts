export { WebhooksModule } from './webhooks.module';
export { WebhookDispatcher, WebhookJob, WebhookJobHandler } from './webhook.job';
export { WebhooksRepository } from './webhooks.repository';

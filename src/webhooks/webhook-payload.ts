import { AppConfig } from '../core/config/env';
import { signature } from './webhook-sender';
import { WebhookRow } from './webhooks.repository';

/** ArcGIS Enterprise's `portalURL`: the public root when configured, else the REST base alone. */
export function portalUrl(config: AppConfig): string {
  return `${config.publicUrl ?? ''}${config.contextPath}/`;
}

/** The body and headers of one delivery: Enterprise's payload, our event and delivery ids, timestamp and signature. */
export function delivery(
  config: AppConfig,
  w: Pick<WebhookRow, 'id' | 'name' | 'secret' | 'config'>,
  events: object[],
  eventId: string,
  deliveryId: string,
): { body: string; headers: Record<string, string> } {
  const now = Date.now();
  const body = JSON.stringify({ info: { webhookId: w.id, webhookName: w.name, portalURL: portalUrl(config), when: now }, events });
  const timestamp = String(now);
  const headers: Record<string, string> = {
    ...(w.config.properties ?? {}),
    'user-agent': 'arcgis-portal-webhooks',
    'X-Webhook-Id': eventId,
    'X-Webhook-Delivery': deliveryId,
    'X-Webhook-Timestamp': timestamp,
  };
  if (w.secret) headers['x-esriHook-Signature'] = signature(w.secret, timestamp, body);
  return { body, headers };
}

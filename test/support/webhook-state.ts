import { DataSource } from 'typeorm';

/**
 * Suites of one run share the database: a suite that delivers webhooks starts with none another suite left (active,
 * its receiver gone, its retries holding the delivery queue) and with the organisation's default delivery settings.
 * Delivery jobs of the removed webhooks end at once, finding their webhook gone.
 */
export async function clearWebhooks(db: DataSource): Promise<void> {
  await db.query(`DELETE FROM webhooks`);
  await db.query(`DELETE FROM webhook_settings`);
}

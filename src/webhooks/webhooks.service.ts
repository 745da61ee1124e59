import { Inject, Injectable } from '@nestjs/common';
import { Caller, isFullAdmin } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { ID_PATTERN, newId } from '../core/ids';
import { nextStart } from '../core/http/paging';
import { IdentityService } from '../identity/identity.service';
import { delivery } from './webhook-payload';
import { sendWebhook, urlProblem } from './webhook-sender';
import { DeliveriesPageDto, WebhookDto, WebhookSettingsDto } from './webhooks.dto';
import { DeliveryRow, WebhookRow, WebhooksRepository } from './webhooks.repository';

const EVENT_URI =
  /^\/(items|groups|users)(\/[A-Za-z0-9_.@-]{1,128})?(\/(add|update|delete|share|unshare|move|reassign|publish|export|protect|unprotect|addUsers|removeUsers|updateUsers|disable|enable))?$/;
const MAX_EVENTS = 100;
const MAX_HEADERS = 20;
const PING_TIMEOUT_MS = 10_000;

/** Webhooks as ArcGIS Enterprise's `portals/<id>/webhooks`: full administrators of the organisation only. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly identity: IdentityService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, portalId: string, p: WebhookDto) {
    const orgId = await this.orgOf(caller, portalId);
    if (!p.name?.trim()) throw Errors.badRequest("'name' is required.", ['Give the webhook a name.']);
    if (!p.url) throw Errors.badRequest("'url' is required.", ['Give the payload URL.']);
    const w = {
      id: newId(),
      org_id: orgId,
      owner_id: caller.userId,
      name: p.name.trim(),
      payload_url: p.url,
      secret: p.secret || null,
      ...this.events(p, true),
      config: this.config_(p.config, {}),
    };
    this.checkUrl(w.payload_url);
    await this.ping(w);
    const row = await this.repo.create(w);
    return { success: true, id: row.id };
  }

  async list(caller: Caller, portalId: string, page: DeliveriesPageDto) {
    const orgId = await this.orgOf(caller, portalId);
    const { total, rows } = await this.repo.list(orgId, page.start, page.num);
    return { webhooks: rows.map(shape), total, start: page.start, num: rows.length, nextStart: nextStart(page, total) };
  }

  async get(caller: Caller, portalId: string, id: string) {
    return shape(await this.require(caller, portalId, id));
  }

  async update(caller: Caller, portalId: string, id: string, p: WebhookDto) {
    const w = await this.require(caller, portalId, id);
    const url = p.url ?? w.payload_url;
    if (p.url !== undefined) this.checkUrl(url);
    const events =
      p.events !== undefined || p.changes !== undefined ? this.events(p, true) : { events: w.events, all_changes: w.all_changes };
    const next = {
      name: p.name?.trim() || w.name,
      payload_url: url,
      ...events,
      secret: p.secret !== undefined ? p.secret || null : w.secret,
      config: p.config !== undefined ? this.config_(p.config, w.config) : w.config,
    };
    if (url !== w.payload_url) await this.ping({ ...w, ...next });
    await this.repo.update(w.org_id, w.id, next);
    return { success: true };
  }

  async remove(caller: Caller, portalId: string, id: string) {
    const w = await this.require(caller, portalId, id);
    await this.repo.remove(w.org_id, w.id);
    return { success: true };
  }

  async setActive(caller: Caller, portalId: string, id: string, active: boolean) {
    const w = await this.require(caller, portalId, id);
    await this.repo.setActive(w.org_id, w.id, active);
    return { success: true };
  }

  async notificationStatus(caller: Caller, portalId: string, id: string, page: DeliveriesPageDto) {
    const w = await this.require(caller, portalId, id);
    const { total, rows } = await this.repo.deliveries(w.id, page.start, page.num);
    return {
      id: w.id,
      total,
      start: page.start,
      num: rows.length,
      nextStart: nextStart(page, total),
      notificationStatusList: rows.map((d) => this.deliveryJson(w, d)),
    };
  }

  async redeliver(caller: Caller, portalId: string, id: string, deliveryId: string) {
    const w = await this.require(caller, portalId, id);
    const d = await this.repo.redeliver(w.id, deliveryId.toLowerCase());
    if (!d) throw Errors.badRequest('Delivery does not exist.', [`No delivery '${deliveryId.slice(0, 64)}' of this webhook.`]);
    return { success: true, deliveryId: d.delivery_id };
  }

  async settings(caller: Caller, portalId: string) {
    return this.repo.settings(await this.orgOf(caller, portalId));
  }

  async updateSettings(caller: Caller, portalId: string, p: WebhookSettingsDto) {
    const orgId = await this.orgOf(caller, portalId);
    const now = await this.repo.settings(orgId);
    await this.repo.updateSettings(orgId, {
      notificationAttempts: p.notificationAttempts ?? now.notificationAttempts,
      notificationTimeOutInSeconds: p.notificationTimeOutInSeconds ?? now.notificationTimeOutInSeconds,
      notificationElapsedTimeInSeconds: p.notificationElapsedTimeInSeconds ?? now.notificationElapsedTimeInSeconds,
    });
    return { success: true };
  }

  private deliveryJson(w: WebhookRow, d: DeliveryRow) {
    return {
      deliveryId: d.delivery_id,
      eventId: d.event_id,
      status: d.status,
      isInvoked: d.invoked !== null,
      invokedTimestamp: d.invoked ? d.invoked.getTime() : -1,
      attempts: d.attempts,
      responseCode: d.response_status,
      responseText: d.response_text ?? '',
      payload: { info: { webhookId: w.id, webhookName: w.name }, events: [d.event] },
    };
  }

  private async orgOf(caller: Caller, portalId: string): Promise<string> {
    const org = await this.identity.orgOfPortal(caller, portalId);
    if (!isFullAdmin(caller)) throw Errors.forbidden('Only full administrators of the organization may manage its webhooks.');
    return org.id;
  }

  private async require(caller: Caller, portalId: string, id: string): Promise<WebhookRow> {
    const orgId = await this.orgOf(caller, portalId);
    const w = ID_PATTERN.test(id) ? await this.repo.find(orgId, id.toLowerCase()) : null;
    if (!w) throw Errors.badRequest('Webhook does not exist.', [`No webhook '${id.slice(0, 64)}' in this organization.`]);
    return w;
  }

  private checkUrl(url: string): void {
    const problem = urlProblem(url, this.config.webhooks);
    if (problem) throw Errors.badRequest('Invalid payload URL.', [problem]);
  }

  /** `events` as a JSON array or a comma-separated list of event URIs, or `changes=allChanges`. */
  private events(p: WebhookDto, required: boolean): { events: string[]; all_changes: boolean } {
    if (p.changes === 'allChanges') return { events: [], all_changes: true };
    const raw = (p.events ?? '').trim();
    let list: unknown = raw.startsWith('[')
      ? parseJson(raw)
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
    if (!Array.isArray(list) || list.some((e) => typeof e !== 'string'))
      throw Errors.badRequest("'events' must be a JSON array or a comma-separated list of event URIs.");
    list = [...new Set((list as string[]).map((e) => e.trim().replace(/\/+$/, '')))];
    const events = list as string[];
    if (required && !events.length)
      throw Errors.badRequest("'events' is required.", ['Name event URIs such as /items/share, or pass changes=allChanges.']);
    if (events.length > MAX_EVENTS) throw Errors.badRequest(`At most ${MAX_EVENTS} events per webhook.`);
    const bad = events.filter((e) => !EVENT_URI.test(e));
    if (bad.length)
      throw Errors.badRequest(
        'Invalid event URIs.',
        bad.slice(0, 20).map((e) => `'${e.slice(0, 64)}' is not an event URI.`),
      );
    return { events, all_changes: false };
  }

  private config_(raw: string | undefined, current: WebhookRow['config']): WebhookRow['config'] {
    if (raw === undefined || raw.trim() === '') return current;
    const c = parseJson(raw) as { deactivationPolicy?: unknown; properties?: unknown } | null;
    if (!c || typeof c !== 'object' || Array.isArray(c)) throw Errors.badRequest("'config' must be a JSON object.");
    const out: WebhookRow['config'] = {};
    if (c.deactivationPolicy !== undefined) {
      const d = c.deactivationPolicy as { numberOfFailures?: unknown; daysInPast?: unknown };
      const ok = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1000;
      if (!d || !ok(d.numberOfFailures) || !ok(d.daysInPast))
        throw Errors.badRequest("'config.deactivationPolicy' needs numberOfFailures and daysInPast, whole numbers from 1 to 1000.");
      out.deactivationPolicy = { numberOfFailures: d.numberOfFailures as number, daysInPast: d.daysInPast as number };
    } else if (current.deactivationPolicy) out.deactivationPolicy = current.deactivationPolicy;
    if (c.properties !== undefined) {
      const props = c.properties as Record<string, unknown>;
      const entries = props && typeof props === 'object' && !Array.isArray(props) ? Object.entries(props) : null;
      const valid = (k: string, v: unknown) =>
        /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(k) &&
        !/^(content-length|content-type|host|transfer-encoding|connection|x-webhook-|x-esrihook-)/i.test(k) &&
        typeof v === 'string' &&
        v.length <= 1024 &&
        !/[\r\n\0]/.test(v);
      if (!entries || entries.length > MAX_HEADERS || entries.some(([k, v]) => !valid(k, v)))
        throw Errors.badRequest(`'config.properties' must be at most ${MAX_HEADERS} extra headers, names and text values.`);
      out.properties = Object.fromEntries(entries) as Record<string, string>;
    }
    return out;
  }

  /** The payload URL is called once (no events) and must answer 2xx, as ArcGIS Enterprise checks at creation. */
  private async ping(w: Pick<WebhookRow, 'id' | 'name' | 'secret' | 'config' | 'payload_url'>): Promise<void> {
    const { body, headers } = delivery(this.config, w, [], 'ping', 'ping');
    let answer: string;
    try {
      const r = await sendWebhook(w.payload_url, body, headers, this.config.webhooks, PING_TIMEOUT_MS);
      if (r.ok) return;
      answer = `It answered HTTP ${r.status}.`;
    } catch (e) {
      answer = (e as Error).message;
    }
    throw Errors.badRequest('Unable to reach the payload URL.', [answer.slice(0, 256)]);
  }
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw Errors.badRequest('Invalid JSON.', ["'events' and 'config' must be valid JSON when given as JSON."]);
  }
}

/** A webhook with ArcGIS Enterprise's field names; the secret never leaves, only whether there is one. */
function shape(w: WebhookRow) {
  return {
    id: w.id,
    accountId: w.org_id,
    name: w.name,
    payloadUrl: w.payload_url,
    secret: w.secret ? '********' : '',
    isActive: w.is_active,
    config: w.config,
    ownerId: w.owner_id,
    created: w.created.getTime(),
    modified: w.modified.getTime(),
    events: w.all_changes ? ['allChanges'] : w.events,
  };
}

import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { BlockList, isIP } from 'node:net';

/** Addresses a webhook never reaches unless WEBHOOK_ALLOW names them: loopback, link-local, private, unique-local. */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['fe80::', 10],
  ['fc00::', 7],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** Bytes of a receiver's answer kept for the delivery log; the rest is not read. */
export const RESPONSE_CAP = 4096;

export class WebhookRefused extends Error {}

export function blockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  return family === 0 || BLOCKED.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export interface SendPolicy {
  /** Host names or addresses allowed whatever their address (WEBHOOK_ALLOW). */
  allow: string[];
  allowHttp: boolean;
}

/** Why a payload URL is refused before anything is sent, or null; the address check proper happens at connect time. */
export function urlProblem(raw: string, policy: SendPolicy): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'The payload URL is not a valid URL.';
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && policy.allowHttp)) return 'The payload URL must use https.';
  if (u.username || u.password) return 'The payload URL must not carry credentials.';
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (isIP(host) && blockedAddress(host) && !policy.allow.includes(host))
    return 'The payload URL names a loopback, link-local or private address.';
  return null;
}

export interface SendResult {
  status: number;
  text: string;
  ok: boolean;
}

/**
 * POSTs a signed JSON body. Node's http client follows no redirects; the address is checked in the socket's own
 * `lookup`, the one the connection then uses, so a DNS answer that changes between check and connect cannot
 * bypass it; literal addresses never reach `lookup` and are checked here.
 */
export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: SendPolicy,
  timeoutMs: number,
): Promise<SendResult> {
  const problem = urlProblem(url, policy);
  if (problem) return Promise.reject(new WebhookRefused(problem));
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const hostAllowed = policy.allow.includes(host);
  const lookup = (hostname: string, options: object, cb: (e: Error | null, a: string | LookupAddress[], f?: number) => void) =>
    dnsLookup(hostname, { ...options, all: true }, (e, addresses: LookupAddress[]) => {
      if (e) return cb(e, []);
      const bad = addresses.find((a) => blockedAddress(a.address) && !hostAllowed && !policy.allow.includes(a.address));
      if (bad) return cb(new WebhookRefused(`The payload URL's host resolves to a refused address (${bad.address}).`), []);
      const all = (options as { all?: boolean }).all;
      return all ? cb(null, addresses) : cb(null, addresses[0].address, addresses[0].family);
    });
  const client = u.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve, reject) => {
    const req = client.request(
      u,
      {
        method: 'POST',
        agent: false,
        lookup: lookup as never,
        timeout: timeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const status = res.statusCode ?? 0;
          resolve({ status, text: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_CAP), ok: status >= 200 && status < 300 });
        };
        res.on('data', (d: Buffer) => {
          if (size < RESPONSE_CAP) chunks.push(d.subarray(0, RESPONSE_CAP - size));
          size += d.length;
          if (size >= RESPONSE_CAP) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', (e) => (size >= RESPONSE_CAP ? undefined : reject(e)));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`No answer within ${timeoutMs} ms.`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** `x-esriHook-Signature`: HMAC-SHA256 of `<timestamp>.<body>` keyed by the webhook's secret, hex, prefixed `sha256=`. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

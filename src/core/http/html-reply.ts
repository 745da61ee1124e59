/**
 * A rendered page, for the few routes that answer `f=html` (the services directory). The reply formatter writes it
 * as text/html with a policy that lets the page load only what this server serves: no inline script, no request to
 * another origin, not framed. A page reached with `?token=` must not hand that URL to anyone as a Referer.
 */
export class HtmlReply {
  constructor(readonly html: string) {}
}

export const HTML_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

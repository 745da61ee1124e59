import escapeHtml from 'escape-html';

/**
 * Markup that is already safe: only `html` below makes one, so text reaches a page escaped unless it went through it.
 * The tag is a few lines of our own because what matters is the default (every interpolation escaped, forgetting is
 * impossible); the escaping itself is escape-html's, the one Express uses.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Html = SafeHtml | string | number | boolean | null | undefined | readonly Html[];

function render(v: Html): string {
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v as string | number | boolean));
}

/** A template whose every interpolated value is escaped, except nested `html` results; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Html[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/**
 * Where the pages link to: path-absolute URLs under the deployment's public path. No link carries a token: a signed-in
 * visitor's pages are authenticated by the session cookie, so no token reaches a URL, a history entry or a Referer.
 */
export class Links {
  constructor(
    /** The public path of {CONTEXT_PATH}: '' or '/portal' (behind PUBLIC_URL, its path too). */
    readonly base: string,
  ) {}

  /** `path` is made of encoded segments; `params` are encoded here. */
  to(path: string, params: Record<string, string | undefined> = {}): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, v);
    const query = qs.toString();
    return `${this.base}${path}${query ? `?${query}` : ''}`;
  }

  /** A directory page: the same URL as the JSON, with f=html. */
  page(path: string, params: Record<string, string | undefined> = {}): string {
    return this.to(path, { f: 'html', ...params });
  }

  services(): string {
    return '/arcgis/rest/services';
  }

  service(name: string): string {
    return `/arcgis/rest/services/${encodeURIComponent(name)}/FeatureServer`;
  }

  layer(name: string, layerId: number): string {
    return `${this.service(name)}/${layerId}`;
  }

  /** The landing page. */
  home(): string {
    return `${this.base}/`;
  }

  /** A page with no JSON of its own: {CONTEXT_PATH}/home/<name>.html (content, exports, groups, group, users, webhooks). */
  homePage(name: string, params: Record<string, string | undefined> = {}): string {
    return this.to(`/home/${name}.html`, params);
  }

  asset(file: string): string {
    return `${this.base}/arcgis/rest/static/${file}`;
  }
}

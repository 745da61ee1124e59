import { HtmlReply } from '../core/http/html-reply';
import { readBool, readInt } from '../core/http/param-values';
import { html, Html, SafeHtml } from './html';
import { errorBox, facts, page, PageContext } from './layout';
import { ArcgisError } from '../core/errors/arcgis-error';
import { LayerInfo } from './service-pages';

/** The query reply in any of its shapes: features, a count, ids, an extent, statistics or distinct values. */
export interface QueryResult {
  count?: number;
  objectIdFieldName?: string;
  objectIds?: number[];
  extent?: { xmin: number; ymin: number; xmax: number; ymax: number; spatialReference?: { wkid?: number } } | null;
  fields?: { name: string; type: string; alias?: string }[];
  features?: { attributes?: Record<string, unknown>; geometry?: Record<string, unknown> | null }[];
  exceededTransferLimit?: boolean;
  geometryType?: string;
}

type Params = Record<string, string | undefined>;

/** The parameters the form sends; only these are read back into it or carried to the next page. */
export const FORM_KEYS = [
  'where',
  'objectIds',
  'outFields',
  'orderByFields',
  'geometry',
  'geometryType',
  'inSR',
  'spatialRel',
  'returnGeometry',
  'outSR',
  'resultOffset',
  'resultRecordCount',
  'returnCountOnly',
  'returnIdsOnly',
  'returnExtentOnly',
  'returnDistinctValues',
  'outStatistics',
  'groupByFieldsForStatistics',
  'f',
] as const;

/** The submitted form's values, nothing else of the request. */
export function formParams(all: Record<string, string>): Params {
  return Object.fromEntries(FORM_KEYS.filter((k) => all[k] !== undefined).map((k) => [k, all[k]]));
}

const GEOMETRY_TYPES = [
  'esriGeometryEnvelope',
  'esriGeometryPoint',
  'esriGeometryMultipoint',
  'esriGeometryPolyline',
  'esriGeometryPolygon',
];
const SPATIAL_RELS = [
  'esriSpatialRelIntersects',
  'esriSpatialRelEnvelopeIntersects',
  'esriSpatialRelContains',
  'esriSpatialRelWithin',
  'esriSpatialRelCrosses',
  'esriSpatialRelOverlaps',
  'esriSpatialRelTouches',
];
/** The result formats: this page, JSON, and the others the layer says it writes (`supportedQueryFormats`). */
function formats(layer: LayerInfo): string[] {
  const supported = layer.supportedQueryFormats.toLowerCase().split(/\s*,\s*/);
  return ['html', 'json', 'pjson', ...['geojson', 'pbf'].filter((f) => supported.includes(f))];
}

function text(label: string, name: string, p: Params, o: { size?: number; area?: boolean; hint?: string } = {}): SafeHtml {
  const id = `q-${name}`;
  const input = o.area
    ? html`<textarea id="${id}" name="${name}" rows="3">${p[name] ?? ''}</textarea>`
    : html`<input id="${id}" name="${name}" value="${p[name] ?? ''}" size="${o.size ?? 40}" />`;
  return html`<label for="${id}">${label}</label>
    <div>${input}${o.hint ? html` <small>${o.hint}</small>` : ''}</div>`;
}

function select(label: string, name: string, options: string[], p: Params, fallback: string): SafeHtml {
  const chosen = p[name] && options.includes(p[name]) ? p[name] : fallback;
  return html`<label for="q-${name}">${label}</label>
    <div>
      <select id="q-${name}" name="${name}">
        ${options.map((v) => html`<option${v === chosen ? html` selected` : ''}>${v}</option>`)}
      </select>
    </div>`;
}

function bool(label: string, name: string, p: Params, fallback: boolean): SafeHtml {
  // Read as the query reads it, so the form shows what was answered; a value it refused shows the default.
  const on = readBool(p[name] ?? '') ?? fallback;
  return html`<span class="label">${label}</span>
    <div role="radiogroup" aria-label="${label}">
      <label><input type="radio" name="${name}" value="true" ${on ? html` checked` : ''} /> True</label>
      <label><input type="radio" name="${name}" value="false" ${on ? '' : html` checked`} /> False</label>
    </div>`;
}

function queryForm(ctx: PageContext, layer: LayerInfo, p: Params): SafeHtml {
  const adv = layer.advancedQueryCapabilities as Record<string, unknown>;
  const spatial = 'geometryType' in layer && !!layer.geometryType;
  return html`<form class="query" method="get" action="${ctx.links.base + ctx.path}">
    <div class="grid">
      ${text('Where', 'where', p, { hint: "e.g. 1=1, NAME LIKE 'A%'" })} ${text('Object IDs', 'objectIds', p)}
      ${text('Out fields', 'outFields', p, { hint: '* or a comma-separated list' })}
      ${text('Order by fields', 'orderByFields', p, { hint: 'FIELD [ASC|DESC], …' })}
      ${
        spatial
          ? html`${text('Input geometry', 'geometry', p, { area: true, hint: 'xmin,ymin,xmax,ymax or geometry JSON' })}
            ${select('Geometry type', 'geometryType', GEOMETRY_TYPES, p, 'esriGeometryEnvelope')}
            ${text('Input spatial reference', 'inSR', p, { size: 10 })}
            ${select('Spatial relationship', 'spatialRel', SPATIAL_RELS, p, 'esriSpatialRelIntersects')}
            ${bool('Return geometry', 'returnGeometry', p, true)} ${text('Output spatial reference', 'outSR', p, { size: 10 })}`
          : ''
      }
      ${text('Result offset', 'resultOffset', p, { size: 10 })} ${text('Result record count', 'resultRecordCount', p, { size: 10 })}
      ${bool('Return count only', 'returnCountOnly', p, false)} ${bool('Return IDs only', 'returnIdsOnly', p, false)}
      ${spatial && adv.supportsReturningQueryExtent ? bool('Return extent only', 'returnExtentOnly', p, false) : ''}
      ${adv.supportsDistinct ? bool('Return distinct values', 'returnDistinctValues', p, false) : ''}
      ${
        adv.supportsStatistics
          ? html`${text('Output statistics', 'outStatistics', p, {
              area: true,
              hint: '[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]',
            })}
            ${text('Group by fields (statistics)', 'groupByFieldsForStatistics', p)}`
          : ''
      }
      ${select('Format', 'f', formats(layer), p, 'html')}
    </div>
    <p><button type="submit">Query (GET)</button></p>
  </form>`;
}

/** A cell's text: dates as ISO time (ArcGIS sends epoch milliseconds), nulls marked, other values as they are. */
function cell(value: unknown, type: string | undefined): Html {
  if (value === null || value === undefined) return html`<span class="none">null</span>`;
  if (type === 'esriFieldTypeDate' && typeof value === 'number') return new Date(value).toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean);
}

/** A geometry in a few words: points by their coordinates, the rest by their parts and vertices. */
function geometrySummary(g: Record<string, unknown> | null | undefined): string {
  if (!g) return 'null';
  const n = (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 1e6) / 1e6) : '?');
  if ('x' in g) return `Point (${n(g.x)}, ${n(g.y)})`;
  const count = (parts: unknown) =>
    Array.isArray(parts) ? parts.reduce((s: number, p: unknown) => s + (Array.isArray(p) ? p.length : 0), 0) : 0;
  if (Array.isArray(g.rings)) return `Polygon: ${g.rings.length} ring(s), ${count(g.rings)} vertices`;
  if (Array.isArray(g.paths)) return `Polyline: ${g.paths.length} path(s), ${count(g.paths)} vertices`;
  if (Array.isArray(g.points)) return `Multipoint: ${g.points.length} point(s)`;
  return 'Envelope';
}

function resultBody(ctx: PageContext, r: QueryResult, p: Params): Html {
  const parts: Html[] = [];
  if (r.count !== undefined) parts.push(facts([['Count', r.count]]));
  if (r.extent !== undefined) {
    const e = r.extent;
    parts.push(facts([['Extent', e ? `${e.xmin}, ${e.ymin}, ${e.xmax}, ${e.ymax} (wkid ${e.spatialReference?.wkid ?? '?'})` : 'empty']]));
  }
  if (r.objectIds) {
    parts.push(
      html`<p>${r.objectIds.length} ${r.objectIdFieldName ?? 'object ID'} value(s):</p>
        <p class="ids">${r.objectIds.join(', ')}</p>`,
    );
  }
  if (r.features) {
    const fields = r.fields ?? Object.keys(r.features[0]?.attributes ?? {}).map((name) => ({ name, type: '', alias: name }));
    const withGeometry = r.features.some((f) => f.geometry !== undefined);
    parts.push(
      html`<p class="summary">${r.features.length} feature(s)${r.exceededTransferLimit ? ', more exist' : ''}.</p>
        <div class="scroll">
          <table class="results">
            <thead>
              <tr>
                ${fields.map((f) => html`<th title="${f.name}">${f.alias || f.name}</th>`)}${withGeometry ? html`<th>Geometry</th>` : ''}
              </tr>
            </thead>
            <tbody>
              ${r.features.map(
                (f) =>
                  html`<tr>
                    ${fields.map((fd) => html`<td>${cell(f.attributes?.[fd.name], fd.type)}</td>`)}${
                      withGeometry ? html`<td>${geometrySummary(f.geometry)}</td>` : ''
                    }
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`,
    );
    if (r.exceededTransferLimit) {
      const offset = (readInt(p.resultOffset ?? '') ?? 0) + r.features.length;
      const next = Object.fromEntries(Object.entries({ ...p, resultOffset: String(offset) }).filter(([k]) => k !== 'token'));
      parts.push(html`<p><a rel="next" href="${ctx.links.page(ctx.path, next)}">Next page</a></p>`);
    }
  }
  return parts;
}

/** The query form, and under it the result of the submitted query when there is one. */
export function queryPage(ctx: PageContext, name: string, layer: LayerInfo, p: Params, result?: QueryResult | ArcgisError): HtmlReply {
  const { links } = ctx;
  const layerPath = links.layer(name, layer.id);
  return page(ctx, {
    title: `Query: ${layer.name} (ID: ${layer.id})`,
    crumbs: [
      { label: 'services', path: links.services() },
      { label: `${name} (FeatureServer)`, path: links.service(name) },
      { label: layer.name, path: layerPath },
      { label: 'query', path: ctx.path },
    ],
    json: false,
    body: html`${queryForm(ctx, layer, p)}
    ${
      result instanceof ArcgisError
        ? errorBox(result)
        : result
          ? html`<section class="result" aria-label="Result">
              <h2>Result</h2>
              ${resultBody(ctx, result, p)}
            </section>`
          : ''
    }`,
  });
}

import { HtmlReply } from '../core/http/html-reply';
import { html } from './html';
import { page, PageContext } from './layout';
import { LayerInfo } from './service-pages';

/**
 * The map preview: OpenLayers (served by this app) draws the layer from its own query endpoint, paging in Web
 * Mercator. Everything the script needs is in data attributes: the policy allows no inline script, and the values
 * are escaped like any other text.
 */
export function previewPage(ctx: PageContext, name: string, layer: LayerInfo, extent3857: number[] | null): HtmlReply {
  const { links } = ctx;
  const layerPath = links.layer(name, layer.id);
  return page(ctx, {
    title: `Map preview: ${layer.name}`,
    crumbs: [
      { label: 'services', path: links.services() },
      { label: `${name} (FeatureServer)`, path: links.service(name) },
      { label: layer.name, path: layerPath },
      { label: 'preview', path: `${layerPath}/preview` },
    ],
    json: false,
    bodyClass: 'preview',
    styles: ['ol/ol.css'],
    scripts: ['ol/ol.js', 'preview.js'],
    body: html`<div class="preview-wrap">
      <div
        id="map"
        class="map"
        tabindex="0"
        data-query="${links.base + layerPath + '/query'}"
        data-extent="${extent3857 ? extent3857.join(',') : ''}"
        data-page-size="${layer.maxRecordCount}"
        data-oid="${layer.objectIdField}"
      ></div>
      <aside class="attributes" aria-live="polite">
        <p id="status" class="status">Loading…</p>
        <h2>Attributes</h2>
        <div id="attributes"><p class="none">Click a feature to see its attributes.</p></div>
      </aside>
    </div>`,
  });
}

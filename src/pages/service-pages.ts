import { HtmlReply } from '../core/http/html-reply';
import { FeatureServerService } from '../feature-server/feature-server.service';
import { html, Html } from './html';
import { facts, page, PageContext } from './layout';

export type ServiceInfo = Awaited<ReturnType<FeatureServerService['serviceInfo']>>;
export type LayerInfo = Awaited<ReturnType<FeatureServerService['layerInfo']>>;

/** What a page shows of a spatial reference: the wkid, and the current one when ArcGIS renumbered it. */
export function srText(sr: { wkid?: number; latestWkid?: number } | undefined | null): string {
  if (!sr) return '';
  return sr.latestWkid && sr.latestWkid !== sr.wkid ? `${sr.wkid} (${sr.latestWkid})` : String(sr.wkid ?? '');
}

const SHORT_TYPE: Record<string, string> = {
  esriGeometryPoint: 'Point',
  esriGeometryMultipoint: 'Multipoint',
  esriGeometryPolyline: 'Polyline',
  esriGeometryPolygon: 'Polygon',
  esriGeometryEnvelope: 'Envelope',
};

export function geometryLabel(type: string | undefined): string {
  return type ? (SHORT_TYPE[type] ?? type) : '';
}

export function catalogPage(ctx: PageContext, services: { name: string; type: string }[]): HtmlReply {
  const { links } = ctx;
  return page(ctx, {
    title: 'Folder: /',
    crumbs: [{ label: 'services', path: links.services() }],
    body: html`${facts([['Current version', '11.1']])}
      <h2>Services</h2>
      ${
        services.length
          ? html`<ul class="services">
              ${services.map(
                (s) => html`<li><a href="${links.page(links.service(s.name))}">${s.name}</a> <span class="kind">(${s.type})</span></li>`,
              )}
            </ul>`
          : html`<p class="none">No services${ctx.username ? '' : ' are public; sign in to see the ones shared with you'}.</p>`
      }`,
  });
}

export function servicePage(ctx: PageContext, name: string, s: ServiceInfo): HtmlReply {
  const { links } = ctx;
  const list = (items: ServiceInfo['layers']) =>
    items.length
      ? html`<ul class="layers">
          ${items.map(
            (l) =>
              html`<li>
                <a href="${links.page(links.layer(name, l.id))}">${l.name}</a>
                (${l.id})${l.geometryType ? html` <span class="kind">${geometryLabel(l.geometryType)}</span>` : ''}
              </li>`,
          )}
        </ul>`
      : html`<p class="none">None.</p>`;
  return page(ctx, {
    title: `${name} (FeatureServer)`,
    crumbs: [
      { label: 'services', path: links.services() },
      { label: `${name} (FeatureServer)`, path: links.service(name) },
    ],
    body: html`${facts([
        ['Service description', s.serviceDescription],
        ['Capabilities', s.capabilities],
        ['Max record count', s.maxRecordCount],
        ['Supported query formats', s.supportedQueryFormats],
        ['Spatial reference', srText(s.spatialReference)],
        ['Units', s.units],
        ['Full extent', extentFacts(s.fullExtent)],
        ['Has versioned data', String(s.hasVersionedData)],
        ['Sync enabled', String(s.syncEnabled)],
      ])}
      <h2>Layers</h2>
      ${list(s.layers)}
      <h2>Tables</h2>
      ${list(s.tables)}`,
  });
}

function extentFacts(e: LayerInfo['extent']): Html {
  if (!e) return html`<span class="none">empty</span>`;
  return html`<dl class="extent">
    <dt>XMin:</dt>
    <dd>${e.xmin}</dd>
    <dt>YMin:</dt>
    <dd>${e.ymin}</dd>
    <dt>XMax:</dt>
    <dd>${e.xmax}</dd>
    <dt>YMax:</dt>
    <dd>${e.ymax}</dd>
    <dt>Spatial reference:</dt>
    <dd>${srText(e.spatialReference)}</dd>
  </dl>`;
}

/** ArcGIS names the edit operations after its capabilities: they are listed (POST only), query and preview are linked. */
export function layerPage(ctx: PageContext, name: string, l: LayerInfo): HtmlReply {
  const { links } = ctx;
  const layerPath = links.layer(name, l.id);
  const caps = l.capabilities.split(',');
  const editing = caps.some((c) => ['Create', 'Update', 'Delete', 'Editing'].includes(c));
  const spatial = 'geometryType' in l && !!l.geometryType;
  const fields = html`<table class="fields">
    <thead>
      <tr>
        <th>Name</th>
        <th>Type</th>
        <th>Alias</th>
        <th>Length</th>
        <th>Nullable</th>
        <th>Editable</th>
      </tr>
    </thead>
    <tbody>
      ${l.fields.map(
        (f) =>
          html`<tr>
            <td>${f.name}</td>
            <td>${f.type}</td>
            <td>${f.alias}</td>
            <td>${'length' in f ? f.length : ''}</td>
            <td>${String(f.nullable)}</td>
            <td>${String(f.editable)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
  return page(ctx, {
    title: `${l.name} (ID: ${l.id})`,
    crumbs: [
      { label: 'services', path: links.services() },
      { label: `${name} (FeatureServer)`, path: links.service(name) },
      { label: l.name, path: layerPath },
    ],
    body: html`${spatial ? html`<p class="view-in">View in: <a href="${links.page(`${layerPath}/preview`)}">Map preview</a></p>` : ''}
      ${facts([
        ['Name', l.name],
        ['Type', l.type],
        ['Display field', l.displayField],
        ['Description', l.description],
        ['Copyright text', l.copyrightText],
        ['Geometry type', spatial ? l.geometryType : undefined],
        ['Spatial reference', srText(l.spatialReference)],
        ['Extent', spatial ? extentFacts(l.extent) : undefined],
        ['Object ID field', l.objectIdField],
        ['Global ID field', l.globalIdField],
        ['Max record count', l.maxRecordCount],
        ['Supported query formats', l.supportedQueryFormats],
        ['Capabilities', l.capabilities],
        ['Supports statistics', String(l.advancedQueryCapabilities.supportsStatistics)],
        ['Supports pagination', String(l.advancedQueryCapabilities.supportsPagination)],
        ['Supports order by', String(l.advancedQueryCapabilities.supportsOrderBy)],
      ])}
      <h2>Fields</h2>
      ${fields}
      <h2>Supported operations</h2>
      <ul class="ops">
        ${caps.includes('Query') ? html`<li><a href="${links.page(`${layerPath}/query`)}">Query</a></li>` : ''}
        ${
          editing
            ? html`<li>Add Features (POST)</li>
                <li>Update Features (POST)</li>
                <li>Delete Features (POST)</li>
                <li>Apply Edits (POST)</li>`
            : ''
        }
      </ul>`,
  });
}

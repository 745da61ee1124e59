// The map preview of one layer: OpenLayers' full build (the global `ol`, served by this app) draws the features the
// layer's own query endpoint returns, page by page in Web Mercator, and shows a clicked feature's attributes.
// Plain script, no build step: the page's policy allows only scripts from this server, and nothing here writes HTML
// (attributes go in with textContent), so a value in the data cannot become markup.
/* global ol, document, window */
'use strict';
(function () {
  var el = document.getElementById('map');
  var status = document.getElementById('status');
  var panel = document.getElementById('attributes');
  var queryUrl = el.dataset.query;
  // The page session's CSRF value: the query goes with the session's cookie, which needs it on a POST.
  var csrf = document.body.dataset.csrf || '';
  var pageSize = Math.max(1, Math.min(Number(el.dataset.pageSize) || 1000, 2000));
  var oidField = el.dataset.oid;
  // A preview, not an export: past this many features the map says it shows only part of the layer.
  var MAX_FEATURES = 20000;

  var blue = '#0b5fa5';
  function makeStyle(color, width, fill) {
    return new ol.style.Style({
      fill: new ol.style.Fill({ color: fill }),
      stroke: new ol.style.Stroke({ color: color, width: width }),
      image: new ol.style.Circle({
        radius: 6,
        fill: new ol.style.Fill({ color: color }),
        stroke: new ol.style.Stroke({ color: '#ffffff', width: 1.5 }),
      }),
    });
  }
  var normal = makeStyle(blue, 2, 'rgba(11, 95, 165, 0.25)');
  var highlight = makeStyle('#d9480f', 3, 'rgba(217, 72, 15, 0.35)');
  var selected = null;

  var source = new ol.source.Vector();
  var layer = new ol.layer.Vector({
    source: source,
    style: function (feature) {
      return feature === selected ? highlight : normal;
    },
  });
  var view = new ol.View({ center: [0, 0], zoom: 1 });
  var map = new ol.Map({ target: el, layers: [layer], view: view });

  function fit(extent) {
    if (extent[2] - extent[0] <= 0 && extent[3] - extent[1] <= 0) {
      view.setCenter([extent[0], extent[1]]);
      view.setZoom(14);
    } else {
      view.fit(extent, { padding: [24, 24, 24, 24], maxZoom: 18 });
    }
  }
  var layerExtent = el.dataset.extent ? el.dataset.extent.split(',').map(Number) : null;
  if (layerExtent && layerExtent.length === 4 && layerExtent.every(isFinite)) fit(layerExtent);

  var dateFields = {};
  function showAttributes(feature) {
    panel.replaceChildren();
    if (!feature) {
      var none = document.createElement('p');
      none.className = 'none';
      none.textContent = 'No feature at that point.';
      panel.appendChild(none);
      return;
    }
    var table = document.createElement('table');
    table.className = 'feature';
    var props = feature.getProperties();
    Object.keys(props).forEach(function (key) {
      if (key === feature.getGeometryName()) return;
      var value = props[key];
      var tr = document.createElement('tr');
      var th = document.createElement('th');
      var td = document.createElement('td');
      th.textContent = key;
      td.textContent =
        value === null || value === undefined
          ? 'null'
          : dateFields[key] && typeof value === 'number'
            ? new Date(value).toISOString()
            : String(value);
      tr.append(th, td);
      table.appendChild(tr);
    });
    panel.appendChild(table);
  }

  map.on('singleclick', function (e) {
    var hits = map.getFeaturesAtPixel(e.pixel, { hitTolerance: 4, layerFilter: (l) => l === layer });
    selected = hits.length ? hits[0] : null;
    layer.changed();
    showAttributes(selected);
  });
  map.on('pointermove', function (e) {
    el.style.cursor = map.hasFeatureAtPixel(e.pixel, { hitTolerance: 4 }) ? 'pointer' : '';
  });

  var format = new ol.format.EsriJSON();
  async function load() {
    var offset = 0;
    for (;;) {
      var params = new URLSearchParams({
        where: '1=1',
        outFields: '*',
        returnGeometry: 'true',
        outSR: '3857',
        orderByFields: oidField,
        resultOffset: String(offset),
        resultRecordCount: String(pageSize),
        f: 'json',
      });
      var reply = await fetch(queryUrl, {
        method: 'POST',
        body: params,
        credentials: 'same-origin',
        headers: csrf ? { 'X-CSRF-Token': csrf } : {},
      });
      var body = await reply.json();
      if (body.error)
        throw new Error(body.error.message + (body.error.details && body.error.details.length ? ' ' + body.error.details.join(' ') : ''));
      (body.fields || []).forEach(function (f) {
        if (f.type === 'esriFieldTypeDate') dateFields[f.name] = true;
      });
      source.addFeatures(format.readFeatures(body, { dataProjection: 'EPSG:3857', featureProjection: 'EPSG:3857' }));
      offset += body.features.length;
      status.textContent = offset + ' feature(s) loaded…';
      if (!body.exceededTransferLimit || !body.features.length) return false;
      if (offset >= MAX_FEATURES) return true;
    }
  }

  load().then(
    function (truncated) {
      var n = source.getFeatures().length;
      status.textContent = n + ' feature(s)' + (truncated ? ' (the first ' + n + '; the preview stops there)' : '') + '.';
      if (!layerExtent && n) fit(source.getExtent());
      map.once('rendercomplete', function () {
        el.dataset.state = 'ready';
      });
      map.render();
    },
    function (err) {
      status.textContent = 'Could not load the features: ' + err.message;
      status.className = 'status error';
      el.dataset.state = 'error';
    },
  );

  // For tests and the curious: the map, its features and its layer.
  window.preview = { map: map, source: source, layer: layer };
})();

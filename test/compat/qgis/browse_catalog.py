"""
QGIS's own ArcGIS REST browser, headless: adds a connection to a services catalog, expands it as the Browser panel
does (connection, services, layers), opens one layer with the URI the browser gives it, and prints what it saw as
JSON on the last line of stdout.

usage: /usr/bin/python3 browse_catalog.py CATALOG_URL [TOKEN] [SERVICE LAYER XMIN,YMIN,XMAX,YMAX]
The token goes through QGIS's "EsriToken" authentication method, which sends it as X-Esri-Authorization.
"""
import json
import os
import sys

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')

from qgis.PyQt.QtGui import QColor  # noqa: E402
from afs_connection import afs_connection, start_qgis  # noqa: E402
from qgis.core import (  # noqa: E402
    QgsFeatureRequest,
    QgsRectangle,
    QgsVectorLayer,
)

url = sys.argv[1]
token = sys.argv[2] if len(sys.argv) > 2 else ''
open_service, open_layer, rect = (sys.argv[3], sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (None, None, None)

app = start_qgis()
connection, keep = afs_connection(url, token)

out = {'services': {}}
for service in connection.createChildren():
    keep.append(service)
    layers = []
    for item in service.createChildren():
        keep.append(item)
        layers.append({'name': item.name(), 'uri': item.uri(), 'provider': item.providerKey()})
    out['services'][service.name()] = {'path': service.path(), 'layers': layers}

if open_service:
    entry = next(l for l in out['services'][open_service]['layers'] if l['name'] == open_layer)
    layer = QgsVectorLayer(entry['uri'], open_layer, entry['provider'])
    # QGIS 3.22 crashes on layer.error() for an invalid layer: validity alone is reported.
    out['opened'] = {'valid': layer.isValid()}
    if layer.isValid():
        xmin, ymin, xmax, ymax = (float(v) for v in rect.split(','))
        request = QgsFeatureRequest().setFilterRect(QgsRectangle(xmin, ymin, xmax, ymax))
        out['opened'].update(
            {
                'count': layer.featureCount(),
                'fields': [f.name() for f in layer.fields()],
                'crs': layer.crs().authid(),
                'inRect': sorted(str(f['Name']) for f in layer.getFeatures(request)),
            }
        )
        # The style QGIS gives the layer: its provider converts the layer's drawingInfo renderer when there is one.
        renderer = layer.renderer()
        symbol = renderer.symbol() if renderer and renderer.type() == 'singleSymbol' else None
        out['opened']['renderer'] = {
            'type': renderer.type() if renderer else None,
            'symbol': type(symbol.symbolLayer(0)).__name__ if symbol else None,
            'color': symbol.color().name(QColor.HexArgb) if symbol else None,
        }

print(json.dumps(out))
app.exitQgis()

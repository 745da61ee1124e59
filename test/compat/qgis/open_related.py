"""
QGIS, headless, opens a service's layer with attachments as its Browser panel lists it (the ArcGIS Feature Service
provider), then the service's GeoPackage export of that layer, its related table and its attachment table (the OGR
provider), and relates them in a project on the service's key fields, as a user declares relations in QGIS 3.22
(which reads none from a service or from a GeoPackage's Related Tables Extension). QGIS 3.22 cannot open an ArcGIS
table from a service (that came with QGIS 3.32), so the related table is read from the export. Prints what it saw as
JSON on the last line of stdout.

usage: /usr/bin/python3 open_related.py CATALOG_URL TOKEN SERVICE LAYER GPKG_PATH TABLE
The token goes through QGIS's "EsriToken" authentication method, which sends it as X-Esri-Authorization.
"""
import json
import os
import re
import sys

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')

from afs_connection import afs_connection, start_qgis  # noqa: E402
from qgis.core import (  # noqa: E402
    QgsProject,
    QgsRelation,
    QgsVectorLayer,
)

url, token, service_name, layer_name, gpkg, table_name = sys.argv[1:7]

app = start_qgis()
connection, keep = afs_connection(url, token)
listed = {}
for service in connection.createChildren():
    keep.append(service)
    if service.name() != service_name:
        continue
    for item in service.createChildren():
        keep.append(item)
        listed[item.name()] = {'uri': item.uri(), 'provider': item.providerKey()}


def describe(layer):
    if not layer.isValid():
        return {'valid': False}
    return {
        'valid': True,
        'count': layer.featureCount(),
        'fields': [f.name() for f in layer.fields()],
        'spatial': layer.isSpatial(),
    }


out = {'listed': sorted(listed)}
entry = listed[layer_name]
from_service = QgsVectorLayer(entry['uri'], layer_name, entry['provider'])
out['service'] = describe(from_service)
if from_service.isValid():
    out['service']['names'] = sorted(str(f['Name']) for f in from_service.getFeatures())

project = QgsProject.instance()
# The export's names for them: other characters than letters, digits and _ become _.
layer_out, table_out = (re.sub('[^A-Za-z0-9_]+', '_', n) for n in (layer_name, table_name))
layer = QgsVectorLayer(f'{gpkg}|layername={layer_out}', layer_out, 'ogr')
table = QgsVectorLayer(f'{gpkg}|layername={table_out}', table_out, 'ogr')
attach = QgsVectorLayer(f'{gpkg}|layername={layer_out}__ATTACH', f'{layer_out}__ATTACH', 'ogr')
out['export'] = {'layer': describe(layer), 'table': describe(table), 'attachments': describe(attach)}
if layer.isValid() and table.isValid() and attach.isValid():
    project.addMapLayers([layer, table, attach])
    fid = layer.dataProvider().fields().at(0).name() if layer.fields().count() else 'fid'
    relations = {}
    for rid, child, key in (('visits', table, 'PlaceId'), ('attachments', attach, 'REL_OBJECTID')):
        relation = QgsRelation()
        relation.setId(rid)
        relation.setName(rid)
        relation.setReferencedLayer(layer.id())
        relation.setReferencingLayer(child.id())
        relation.addFieldPair(key, fid)
        project.relationManager().addRelation(relation)
        relations[rid] = relation
    related = {}
    for feature in layer.getFeatures():
        related[str(feature['Name'])] = {
            'visits': sorted(str(r['Note']) for r in relations['visits'].getRelatedFeatures(feature)),
            'attachments': sorted(
                f"{r['ATT_NAME']}:{r['DATA_SIZE']}:{bytes(r['DATA']).decode()}" for r in relations['attachments'].getRelatedFeatures(feature)
            ),
        }
    out['relations'] = {'valid': [r.isValid() for r in relations.values()], 'key': fid, 'related': related}

print(json.dumps(out))
project.clear()
app.exitQgis()

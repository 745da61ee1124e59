"""
What the QGIS scripts share: a headless QGIS, and the Browser panel's ArcGIS Feature Service connection to a services
catalog, expanded down to the connection as a person does. A token goes through QGIS's "EsriToken" authentication
method, which sends it as X-Esri-Authorization.
"""
import os

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')

from qgis.core import QgsApplication, QgsAuthMethodConfig, QgsSettings  # noqa: E402


def start_qgis():
    """The application, initialised; the caller holds it and calls exitQgis() at the end."""
    app = QgsApplication([], False)
    app.initQgis()
    return app


def afs_connection(url, token=''):
    """
    The connection 'compat' to `url` as the Browser lists it, and the list holding every item made on the way: items
    own their children, and holding every level keeps Python from deleting one under another (append to it too).
    """
    authcfg = ''
    if token:
        manager = QgsApplication.authManager()
        manager.setMasterPassword('qgis-compat-test', True)
        cfg = QgsAuthMethodConfig('EsriToken')
        cfg.setName('compat')
        cfg.setConfig('token', token)
        manager.storeAuthenticationConfig(cfg)
        authcfg = cfg.id()
    settings = QgsSettings()
    settings.setValue('qgis/connections-arcgisfeatureserver/compat/url', url)
    settings.setValue('qgis/ARCGISFEATURESERVER/compat/authcfg', authcfg)
    provider = next(p for p in QgsApplication.dataItemProviderRegistry().providers() if p.name() == 'AFS')
    root = provider.createDataItem('', None)
    keep = [root]
    connections = root.createChildren()
    keep += connections
    return next(c for c in connections if c.name() == 'compat'), keep

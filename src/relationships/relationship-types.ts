/**
 * Who must own what for a relationship to be made: ArcGIS's rules (mustOwnAllItems, mustOwnOriginItem,
 * mustOwnDestinationItem). `either` is this service's rule where ArcGIS has none: the creator may change at least one
 * of the two items, so nobody can hang links on two items of other users.
 */
export type OwnershipRule = 'all' | 'origin' | 'destination' | 'either';

export interface RelationshipType {
  /** Item types the origin may have; undefined: any. */
  origin?: readonly string[];
  destination?: readonly string[];
  rule: OwnershipRule;
}

const SERVICES = [
  'Feature Service',
  'Map Service',
  'Image Service',
  'Vector Tile Service',
  'Scene Service',
  'Stream Service',
  'WMS',
  'WFS',
  'WMTS',
  'KML',
  'OGCFeatureServer',
  'Geocoding Service',
  'Geoprocessing Service',
  'Network Analysis Service',
  'Geometry Service',
];
const SOURCE_DATA = [
  ...SERVICES,
  'Service Definition',
  'CSV',
  'CSV Collection',
  'Shapefile',
  'File Geodatabase',
  'GeoJson',
  'GeoJSON',
  'GeoPackage',
  'Microsoft Excel',
  'Feature Collection',
  'SQLite Geodatabase',
  'FlatGeobuf',
];
const MAPS = ['Web Map', 'Web Scene'];
const PACKAGES = ['Map Package', 'Tile Package', 'SQLite Geodatabase', 'Vector Tile Package'];

/**
 * Every relationship type of arcgis-rest-portal's ItemRelationshipType, which is what clients send. Origin and
 * destination item types are checked where ArcGIS's table names them for services, maps, apps and files; the others
 * accept any item type rather than refuse a combination ArcGIS allows.
 */
export const RELATIONSHIP_TYPES: Record<string, RelationshipType> = {
  Map2Service: { origin: MAPS, destination: SERVICES, rule: 'either' },
  WMA2Code: { origin: ['Web Mapping Application'], destination: ['Code Attachment'], rule: 'all' },
  Map2FeatureCollection: { origin: ['Web Map'], destination: ['Feature Collection'], rule: 'either' },
  MobileApp2Code: { origin: ['Mobile Application'], destination: ['Code Attachment'], rule: 'all' },
  Service2Data: { origin: SERVICES, destination: SOURCE_DATA, rule: 'all' },
  Service2Service: { origin: SERVICES, destination: SERVICES, rule: 'all' },
  Map2AppConfig: { origin: ['Web Map'], destination: ['Application Configuration'], rule: 'all' },
  Item2Attachment: { rule: 'all' },
  Item2Report: { rule: 'either' },
  Listed2Provisioned: { rule: 'all' },
  Style2Style: { origin: ['Vector Tile Service'], destination: ['Vector Tile Service', 'Style'], rule: 'destination' },
  Service2Style: { destination: ['Vector Tile Service', 'Style'], rule: 'destination' },
  Survey2Service: { origin: ['Form'], destination: ['Feature Service'], rule: 'origin' },
  Survey2Data: { origin: ['Form'], rule: 'origin' },
  Service2Route: { origin: ['Feature Service'], destination: ['Feature Service'], rule: 'all' },
  Area2Package: { origin: ['Map Area'], destination: PACKAGES, rule: 'all' },
  Map2Area: { origin: ['Web Map'], destination: ['Map Area'], rule: 'all' },
  Area2CustomPackage: { origin: ['Map Area'], destination: PACKAGES, rule: 'all' },
  Service2Layer: { origin: ['Feature Service'], destination: ['Feature Service'], rule: 'all' },
  TrackView2Map: { destination: ['Web Map'], rule: 'all' },
  SurveyAddIn2Data: { rule: 'origin' },
  Theme2Story: { rule: 'all' },
  WebStyle2DesktopStyle: { origin: ['Style'], destination: ['Style', 'Desktop Style'], rule: 'all' },
  Solution2Item: { origin: ['Solution'], rule: 'all' },
  APIKey2Item: { origin: ['API Key'], rule: 'all' },
  WorkforceMap2FeatureService: { origin: ['Web Map'], destination: ['Feature Service'], rule: 'either' },
};

/** The type as ArcGIS spells it, whatever the case it was sent in; undefined when there is none of that name. */
export function relationshipType(name: string): string | undefined {
  const n = name.trim().toLowerCase();
  return Object.keys(RELATIONSHIP_TYPES).find((t) => t.toLowerCase() === n);
}

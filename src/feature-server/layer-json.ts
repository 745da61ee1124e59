import { GeometryType, LayerField } from '../layers/layer-schema';

type Rgba = [number, number, number, number];

const OUTLINE: Rgba = [255, 255, 255, 255];
const POINT: Rgba = [0, 112, 255, 255];
const LINE: Rgba = [165, 83, 183, 255];
const FILL: Rgba = [76, 129, 205, 191];
const EDGE: Rgba = [0, 0, 0, 255];

const solidLine = (color: Rgba, width: number) => ({ type: 'esriSLS', style: 'esriSLSSolid', color, width });

/** The symbol a new hosted layer draws with, as ArcGIS Online gives one per geometry type. */
function symbol(geometryType: GeometryType) {
  switch (geometryType) {
    case 'esriGeometryPoint':
    case 'esriGeometryMultipoint':
      return {
        type: 'esriSMS',
        style: 'esriSMSCircle',
        color: POINT,
        size: 6,
        angle: 0,
        xoffset: 0,
        yoffset: 0,
        outline: solidLine(OUTLINE, 0.75),
      };
    case 'esriGeometryPolyline':
      return solidLine(LINE, 1);
    case 'esriGeometryPolygon':
      return { type: 'esriSFS', style: 'esriSFSSolid', color: FILL, outline: solidLine(EDGE, 0.75) };
  }
}

/**
 * A simple renderer: ArcGIS Pro, QGIS and the web clients draw the layer with it when added, where a layer without
 * one is drawn in whatever each client picks. Layers have no stored symbology, so it follows the geometry type.
 */
export function drawingInfo(geometryType: GeometryType) {
  return {
    renderer: { type: 'simple', symbol: symbol(geometryType), label: '', description: '' },
    transparency: 0,
    labelingInfo: null,
  };
}

const DRAWING_TOOL: Record<GeometryType, string> = {
  esriGeometryPoint: 'esriFeatureEditToolPoint',
  esriGeometryMultipoint: 'esriFeatureEditToolPoint',
  esriGeometryPolyline: 'esriFeatureEditToolLine',
  esriGeometryPolygon: 'esriFeatureEditToolPolygon',
};

/**
 * The one feature template editors offer to create with (ArcGIS Pro's Create Features pane, the web Editor): named
 * after the layer, every editable field left empty. None when the service does not take new features.
 */
export function templates(name: string, geometryType: GeometryType | null, fields: LayerField[], capabilities: string) {
  if (!capabilities.split(',').includes('Create')) return [];
  const attributes = Object.fromEntries(fields.filter((f) => f.editable).map((f) => [f.name, null]));
  return [
    {
      name,
      description: '',
      drawingTool: geometryType ? DRAWING_TOOL[geometryType] : 'esriFeatureEditToolNone',
      prototype: { attributes },
    },
  ];
}

/** ArcGIS's name of a PROJ `+units` value; units ArcGIS has no name for are unknown. */
const PROJ_UNITS: Record<string, string> = {
  m: 'esriMeters',
  km: 'esriKilometers',
  dm: 'esriDecimeters',
  cm: 'esriCentimeters',
  mm: 'esriMillimeters',
  ft: 'esriFeet',
  'us-ft': 'esriFeet',
  yd: 'esriYards',
  'us-yd': 'esriYards',
  mi: 'esriMiles',
  'us-mi': 'esriMiles',
  kmi: 'esriNauticalMiles',
  in: 'esriInches',
  'us-in': 'esriInches',
};

/**
 * A spatial reference's map units (the service's `units`), read from its PROJ definition in spatial_ref_sys, or from
 * its WKT when a row has no PROJ text.
 */
export function mapUnits(proj4text: string | null | undefined, srtext?: string | null): string {
  if (!proj4text?.trim()) return /^\s*GEOG(CS|CRS)\b/i.test(srtext ?? '') ? 'esriDecimalDegrees' : 'esriUnknownUnits';
  const params = new Map(
    (proj4text ?? '')
      .split(/\s+/)
      .filter((p) => p.startsWith('+'))
      .map((p) => {
        const [k, v = ''] = p.slice(1).split('=');
        return [k, v] as const;
      }),
  );
  const proj = params.get('proj');
  if (proj === 'longlat' || proj === 'latlong' || proj === 'lonlat' || proj === 'latlon') return 'esriDecimalDegrees';
  const units = params.get('units');
  if (units) return PROJ_UNITS[units] ?? 'esriUnknownUnits';
  const toMeter = Number(params.get('to_meter'));
  if (params.has('to_meter')) return Math.abs(toMeter - 0.3048) < 1e-5 ? 'esriFeet' : toMeter === 1 ? 'esriMeters' : 'esriUnknownUnits';
  // PROJ's default unit for a projection is the metre.
  return proj ? 'esriMeters' : 'esriUnknownUnits';
}

export interface Envelope {
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
  spatialReference: { wkid: number; latestWkid?: number };
}

export function envelope(box: number[] | null, spatialReference: Envelope['spatialReference']): Envelope | null {
  if (!box || !box.every(Number.isFinite)) return null;
  const [xmin, ymin, xmax, ymax] = box;
  return { xmin, ymin, xmax, ymax, spatialReference };
}

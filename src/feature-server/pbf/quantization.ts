/**
 * `quantizationParameters` of a query with f=json or f=pbf: the integer grid the reply's coordinates are written on.
 *
 * The ArcGIS Maps SDK sends `{"mode":"view","originPosition":"upperLeft","tolerance":<one pixel>,"extent":<the tile>}`
 * for every tile it draws: coordinates become whole pixels from the tile's corner, and vertices that land on the same
 * pixel as the one before are dropped (ArcGIS's "view" generalization). That is what is served. "edit" mode (the
 * spatial reference's own resolution, for editing clients) is refused, as is an extent in another spatial reference
 * than the reply's, rather than quietly answered on a grid the client did not ask for.
 */
import { jsonParam } from '../../core/http/param-values';
import { invalidQuery, srParam } from '../query-params';
import { PbfTransform } from './grid';

const NAME = 'quantizationParameters';

/**
 * The grid when the client sends none: the integers still need a scale, so one finer than any survey measures
 * (1e-9 degree is about 0.1 mm; 0.1 mm in projected units), from the spatial reference's origin.
 */
export function defaultTransform(geographic: boolean): PbfTransform {
  return { originPosition: 'upperLeft', scale: geographic ? 1e-9 : 1e-4, xTranslate: 0, yTranslate: 0 };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The transform the parameter asks for, or undefined when it is absent. `outSrid` is the reply's spatial reference. */
export function quantizationTransform(raw: string | undefined, outSrid: number): PbfTransform | undefined {
  const q = jsonParam<Record<string, unknown>>(NAME, raw, 'object', (p) => invalidQuery(p.message));
  if (!q) return undefined;
  const mode = q.mode ?? 'view';
  if (mode !== 'view') throw invalidQuery(`'${NAME}' mode '${String(mode).slice(0, 32)}' is not supported; only 'view' is.`);
  const origin = q.originPosition ?? 'upperLeft';
  if (origin !== 'upperLeft' && origin !== 'lowerLeft') throw invalidQuery(`'${NAME}' originPosition must be 'upperLeft' or 'lowerLeft'.`);
  if (!finite(q.tolerance) || q.tolerance <= 0) throw invalidQuery(`'${NAME}' needs a tolerance greater than 0 (the size of one pixel).`);
  const e = q.extent as Record<string, unknown> | undefined;
  if (e === null || typeof e !== 'object' || Array.isArray(e))
    throw invalidQuery(`'${NAME}' needs an extent {xmin, ymin, xmax, ymax} to quantize from.`);
  const { xmin, ymin, xmax, ymax } = e;
  if (!finite(xmin) || !finite(ymin) || !finite(xmax) || !finite(ymax) || xmin > xmax || ymin > ymax)
    throw invalidQuery(`'${NAME}' extent needs finite xmin <= xmax and ymin <= ymax.`);
  if (e.spatialReference !== undefined) {
    const srid = srParam(`${NAME}.extent.spatialReference`, JSON.stringify(e.spatialReference));
    if (srid !== outSrid)
      throw invalidQuery(`'${NAME}' extent is in wkid ${srid}, not in the reply's spatial reference (wkid ${outSrid}); send it in outSR.`);
  }
  // Past 2^40 pixels from the origin the integers lose the precision the client needs to add the deltas back.
  const reach = Math.max(Math.abs(xmin), Math.abs(xmax), Math.abs(ymin), Math.abs(ymax), xmax - xmin, ymax - ymin);
  if (reach / q.tolerance > 2 ** 40) throw invalidQuery(`'${NAME}' tolerance is too fine for its extent.`);
  return {
    originPosition: origin,
    scale: q.tolerance,
    xTranslate: xmin,
    yTranslate: origin === 'upperLeft' ? ymax : ymin,
  };
}

/**
 * The transform as an f=json reply writes it, before `fields`: x = translate[0] + scale[0] × column, and from the
 * upper left y = translate[1] − scale[1] × row (plus from the lower left), as ArcGIS Online writes it and the ArcGIS
 * Maps SDK reads it.
 */
export function esriTransform(t: PbfTransform) {
  return { originPosition: t.originPosition, scale: [t.scale, t.scale], translate: [t.xTranslate, t.yTranslate] };
}

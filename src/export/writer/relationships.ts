/**
 * The relationships between exported layers, as each format allows: a File Geodatabase gets relationship classes
 * (GDAL's OpenFileGDB writer, through the C API: gdal-async does not bind GDALRelationship), a GeoPackage a Related
 * Tables Extension relation per relationship (its mapping table pairs each origin row with its related rows, as the
 * extension has no one-to-many form). Other formats have no place for them.
 */
import type { Dataset } from 'gdal-async';
import { join } from 'node:path';
import { RunContext } from './engine';
import { GDAL_OF, gdalLibrary } from './gdal/gdal-c';
import { addGpkgRelation, sqlName } from './gpkg/gpkg-relations';
import { ExportLayerSource, ExportRelationship } from './types';

type Stage = Pick<RunContext, 'job' | 'plan' | 'stage'>;

/** GDALRelationshipCardinality and GDALRelationshipType. */
const CARDINALITY = { esriRelCardinalityOneToOne: 0, esriRelCardinalityOneToMany: 1 };
const COMPOSITE = 0;
const ASSOCIATION = 1;

/** A key field's column in the written layer: the OID became the layer's FID column; others keep their names. */
function column(ds: Dataset, layerName: string, source: ExportLayerSource, key: string): string | undefined {
  const layer = ds.layers.get(layerName);
  const field = source.fields.find((f) => f.name === key);
  if (!field) return undefined;
  if (field.type === 'esriFieldTypeOID') return layer.fidColumn || undefined;
  return layer.fields.getNames().find((n) => n.toLowerCase() === key.toLowerCase());
}

export async function writeRelationships(run: Stage): Promise<void> {
  const { job, plan, stage } = run;
  const list = job.relationships ?? [];
  if (!list.length || (job.format !== 'geopackage' && job.format !== 'filegdb')) return;
  const gdal = await import('gdal-async');
  const path = join(stage, plan.layers[0].dataset);
  const ds = await gdal.openAsync(path, job.format === 'geopackage' ? 'r+' : 'r');
  const resolved: (ExportRelationship & { left: string; right: string; leftKey: string; rightKey: string })[] = [];
  try {
    for (const r of list) {
      const [left, right] = [plan.layers[r.origin].layerName, plan.layers[r.destination].layerName];
      const leftKey = column(ds, left, job.layers[r.origin], r.originKey);
      const rightKey = column(ds, right, job.layers[r.destination], r.destinationKey);
      if (leftKey && rightKey) resolved.push({ ...r, left, right, leftKey, rightKey });
    }
    if (job.format === 'geopackage')
      for (const [i, r] of resolved.entries()) {
        // `<origin>_<destination>`, numbered when two relationships join the same pair.
        const pair = (x: (typeof resolved)[number]) => `${x.left}_${x.right}`.replace(/[^\p{L}\p{N}_]/gu, '_');
        const twin = resolved.filter((x) => pair(x) === pair(r)).length > 1;
        const [lf, rf] = [ds.layers.get(r.left).fidColumn || 'fid', ds.layers.get(r.right).fidColumn || 'fid'];
        addGpkgRelation(ds, {
          base: r.left,
          basePrimaryColumn: lf,
          related: r.right,
          relatedPrimaryColumn: rf,
          relationName: job.layers[r.destination].geometryType ? 'features' : 'attributes',
          mapping: twin ? `${pair(r)}_${i + 1}` : pair(r),
          pairs:
            `SELECT o.${sqlName(lf)}, d.${sqlName(rf)} FROM ${sqlName(r.left)} o JOIN ${sqlName(r.right)} d ` +
            `ON o.${sqlName(r.leftKey)} = d.${sqlName(r.rightKey)}`,
        });
      }
  } finally {
    ds.close();
  }
  if (job.format === 'filegdb') addGeodatabaseRelationships(path, resolved);
}

/** A relationship class as the geodatabase writer takes it: tables and key fields by their names in the file. */
type GdbRelationship = Omit<ExportRelationship, 'origin' | 'destination' | 'originKey' | 'destinationKey'> & {
  left: string;
  right: string;
  leftKey: string;
  rightKey: string;
  /** GDAL's related table type: `media` makes the right table the left one's attachments. */
  relatedType?: 'features' | 'media';
};

/**
 * The attachment tables of a File Geodatabase made ArcGIS's attachments: the composite `<layer>__ATTACHREL`
 * relationship class from the layer to its `<layer>__ATTACH` table, by object id (REL_OBJECTID), which every
 * exported attachment has (REL_GLOBALID only where the layer has GlobalIDs).
 */
export async function relateGeodatabaseAttachments(path: string, layers: string[]): Promise<void> {
  const gdal = await import('gdal-async');
  const ds = await gdal.openAsync(path);
  let list: GdbRelationship[];
  try {
    list = layers.map((layer) => ({
      name: `${layer}__ATTACHREL`,
      left: layer,
      right: `${layer}__ATTACH`,
      leftKey: ds.layers.get(layer).fidColumn || 'OBJECTID',
      rightKey: 'REL_OBJECTID',
      cardinality: 'esriRelCardinalityOneToMany',
      composite: true,
      forwardLabel: 'attachments',
      backwardLabel: 'object',
      relatedType: 'media',
    }));
  } finally {
    ds.close();
  }
  addGeodatabaseRelationships(path, list);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- koffi's functions take and give untyped values */
function addGeodatabaseRelationships(path: string, list: GdbRelationship[]): void {
  if (!list.length) return;
  const { lib } = gdalLibrary();
  const fn = (decl: string): ((...args: any[]) => any) => lib.func(decl);
  const g = {
    open: fn('void *GDALOpenEx(const char *, unsigned int, void *, void *, void *)'),
    close: fn('void GDALClose(void *)'),
    create: fn('void *GDALRelationshipCreate(const char *, const char *, const char *, int)'),
    destroy: fn('void GDALDestroyRelationship(void *)'),
    leftFields: fn('void GDALRelationshipSetLeftTableFields(void *, const char **)'),
    rightFields: fn('void GDALRelationshipSetRightTableFields(void *, const char **)'),
    type: fn('void GDALRelationshipSetType(void *, int)'),
    relatedType: fn('void GDALRelationshipSetRelatedTableType(void *, const char *)'),
    forward: fn('void GDALRelationshipSetForwardPathLabel(void *, const char *)'),
    backward: fn('void GDALRelationshipSetBackwardPathLabel(void *, const char *)'),
    add: fn('bool GDALDatasetAddRelationship(void *, void *, _Out_ char **)'),
    lastError: fn('const char *CPLGetLastErrorMsg()'),
  };
  const ds = g.open(path, GDAL_OF.UPDATE | GDAL_OF.VECTOR | GDAL_OF.VERBOSE_ERROR, null, null, null);
  if (!ds) throw new Error(`GDAL could not open the geodatabase to add its relationships: ${g.lastError()}`);
  try {
    for (const r of list) {
      const h = g.create(r.name, r.left, r.right, CARDINALITY[r.cardinality]);
      try {
        g.leftFields(h, [r.leftKey, null]);
        g.rightFields(h, [r.rightKey, null]);
        g.type(h, r.composite ? COMPOSITE : ASSOCIATION);
        g.relatedType(h, r.relatedType ?? 'features');
        g.forward(h, r.forwardLabel);
        g.backward(h, r.backwardLabel);
        const reason: (string | null)[] = [null];
        if (!g.add(ds, h, reason)) throw new Error(`GDAL could not add relationship '${r.name}': ${reason[0] ?? g.lastError()}`);
      } finally {
        g.destroy(h);
      }
    }
  } finally {
    g.close(ds);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

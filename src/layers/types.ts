/** The rows of feature_services and feature_layers as the layers repository reads them, and a service to create. */
import { LayerDefinition, LayerField, LayerRelationship } from './layer-schema';
import { ViewLayerDefinition } from './view-schema';

export interface ServiceRow {
  item_id: string;
  org_id: string;
  owner_id: string;
  owner: string;
  name: string;
  schema_name: string;
  max_record_count: number;
  capabilities: string;
  spatial_reference: { wkid: number; latestWkid?: number };
  description: string;
  title: string;
  /** A hosted feature layer view: its layers read other services' layers (view-schema.ts). */
  is_view: boolean;
  /** ArcGIS's cacheMaxAge in seconds; null follows CACHE_MAX_AGE_S (migration ServiceCacheMaxAge1732540000000). */
  cache_max_age?: number | null;
}

export interface LayerRow {
  service_item_id: string;
  layer_id: number;
  name: string;
  kind: 'Feature Layer' | 'Table';
  geometry_type: LayerDefinition['geometryType'];
  srid: number;
  table_name: string;
  object_id_field: string;
  display_field: string | null;
  fields: LayerField[];
  /** Always in the table (migration LayerAdmin1732490000000); rows built in code may leave them out. */
  description?: string;
  relationships?: LayerRelationship[];
  has_attachments: boolean;
  /**
   * Set on a view layer as attachments see it (LayersRepository.attachmentsLayer): `service_item_id`/`layer_id` then
   * name the source layer, whose attachments these are, and only those of features in this relation are reachable.
   */
  attachments_through?: { schema: string; table: string };
}

export interface NewService {
  itemId: string;
  ownerId: string;
  orgId: string;
  name: string;
  title: string;
  url: string;
  description: string;
  tags: string[];
  capabilities: string;
  maxRecordCount: number;
  spatialReference: { wkid: number; latestWkid?: number };
  /** 'processing' while a publish job fills the service. */
  status?: 'processing' | 'completed';
  /** createService with isView=true: a view, whose layers are added with their sources. */
  isView?: boolean;
  /** createParameters.cacheMaxAge; unset follows CACHE_MAX_AGE_S. */
  cacheMaxAge?: number;
}

/** A layer of a view service with its source, as feature_view_layers holds it. */
export interface ViewLayerRow {
  layer_id: number;
  source_item_id: string;
  source_layer_id: number;
  definition: ViewLayerDefinition;
}

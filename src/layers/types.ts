/** The rows of feature_services and feature_layers as the layers repository reads them, and a service to create. */
import { LayerDefinition, LayerField } from './layer-schema';

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
  has_attachments: boolean;
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
}

/**
 * The service and layer rows a query read, remembered so that later pages of the layer need no round trip to look
 * them up. Nothing is trusted for that: the page's own statement first checks that the rows are still as they were
 * (a stamp of their text) and that the caller may see the service (visibleSql, so a sharing change counts from the
 * next request), and reads no row of the layer otherwise; the query then takes the usual way.
 */
import { visibleSql } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import type { LayerRow, ServiceRow } from './features.repository';

/** The text of a service's row and a layer's (aliases `s` and `l`): it changes whenever either row does. */
export const DEFINITION_STAMP = `row_to_json(s)::text || row_to_json(l)::text`;

export interface KnownLayer {
  service: ServiceRow;
  layer: LayerRow;
  stamp: string;
}

/**
 * SQL, true when the service named `name` still has the layer as `known` stamped it and `caller` may see the service:
 * the check findServiceLayer makes, in the statement that reads the page.
 */
export function knownLayerGuard(name: string, known: KnownLayer, caller: Caller | undefined, p: SqlParams): string {
  return `EXISTS (SELECT 1 FROM feature_services s JOIN items i ON i.id = s.item_id
      JOIN feature_layers l ON l.service_item_id = s.item_id AND l.layer_id = ${p.add(known.layer.layer_id)}
     WHERE lower(s.name) = lower(${p.add(name)}) AND ${DEFINITION_STAMP} = ${p.add(known.stamp)} AND ${visibleSql('i', caller, p)})`;
}

/** The last layers queried, by service name and layer id as requested; the oldest go first past `max`. */
export class KnownLayers {
  private readonly known = new Map<string, KnownLayer>();

  constructor(private readonly max = 1000) {}

  private key(name: string, layerId: string): string {
    return `${name.toLowerCase()}/${layerId}`;
  }

  get(name: string, layerId: string): KnownLayer | undefined {
    return this.known.get(this.key(name, layerId));
  }

  remember(name: string, layerId: string, known: KnownLayer): void {
    const key = this.key(name, layerId);
    this.known.delete(key);
    this.known.set(key, known);
    if (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
  }
}

/**
 * The service and layer rows a query read, remembered so that later pages of the layer need no round trip to look
 * them up. Nothing is trusted for that: the page's own statement first checks that the rows are still as they were
 * (a stamp of their text) and that the caller may see the service (visibleSql, so a sharing change counts from the
 * next request), and reads no row of the layer otherwise; the query then takes the usual way.
 */
import { visibleSql } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { SqlParams } from '../core/database/sql-params';
import { LayerRow, ServiceRow } from './types';

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

/**
 * The last layers each caller queried (anonymous callers share one list), by service name and layer number; the
 * oldest go first past `max` entries or past `maxChars` of stamps, which the remembered rows grow with (a layer of
 * 1,000 fields with long aliases stamps half a million characters).
 *
 * A caller only finds the definitions it was last allowed to read: the request is checked against them before the
 * guard runs (spec(), where, outFields), so a remembered layer of a service the caller may not see would answer
 * faster or slower depending on whether it has the field the request names.
 */
export class KnownLayers {
  private readonly known = new Map<string, KnownLayer>();
  private chars = 0;

  constructor(
    private readonly max = 1000,
    private readonly maxChars = 8_000_000,
  ) {}

  /** undefined when `layerId` names no layer (nothing is remembered for it). */
  private key(caller: Caller | undefined, name: string, layerId: string): string | undefined {
    if (!/^\d{1,9}$/.test(layerId)) return undefined;
    return JSON.stringify([caller?.userId ?? null, name.toLowerCase(), Number(layerId)]);
  }

  get(caller: Caller | undefined, name: string, layerId: string): KnownLayer | undefined {
    const key = this.key(caller, name, layerId);
    return key === undefined ? undefined : this.known.get(key);
  }

  remember(caller: Caller | undefined, name: string, layerId: string, known: KnownLayer): void {
    const key = this.key(caller, name, layerId);
    if (key === undefined) return;
    this.forget(key);
    this.known.set(key, known);
    this.chars += known.stamp.length;
    while (this.known.size > this.max || this.chars > this.maxChars) this.forget(this.known.keys().next().value!);
  }

  private forget(key: string): void {
    const gone = this.known.get(key);
    if (!gone) return;
    this.known.delete(key);
    this.chars -= gone.stamp.length;
  }
}

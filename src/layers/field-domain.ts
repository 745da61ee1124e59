import { Errors } from '../core/errors/arcgis-error';
import { LayerField } from './layer-schema';

/**
 * A field's `domain` as a definition change gives it: null removes it, an object of a known domain type is stored
 * and returned as given. The one place definition changes read domains, so a fuller check replaces this body alone.
 */
export function fieldDomain(raw: unknown, layer: string, field: LayerField): LayerField['domain'] {
  if (raw === null) return null;
  const type = (raw as { type?: unknown } | undefined)?.type;
  if (typeof raw !== 'object' || Array.isArray(raw) || (type !== 'codedValue' && type !== 'range'))
    throw Errors.badRequest('Invalid definition.', [
      `Layer '${layer}', field '${field.name}': 'domain' must be null or a codedValue or range domain.`,
    ]);
  if (JSON.stringify(raw).length > 1_000_000)
    throw Errors.badRequest('Invalid definition.', [
      `Layer '${layer}', field '${field.name}': the domain is larger than 1,000,000 characters.`,
    ]);
  return raw as Record<string, unknown>;
}

import { ContentRepository } from '../content/content.repository';
import { ItemRow } from '../content/item-sql';
import { Caller } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';

/** The file item `caller` may publish: one they see and own. The request asks it, and the publish job again when it runs. */
export async function publishableSource(content: ContentRepository, caller: Caller, sourceId: string): Promise<ItemRow> {
  const source = await content.findVisibleItem(sourceId, caller);
  if (!source) throw Errors.itemNotFound(sourceId);
  if (source.owner_id !== caller.userId) throw Errors.forbidden('Only the owner of the file item may publish it.');
  return source;
}

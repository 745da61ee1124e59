import { Injectable } from '@nestjs/common';
import { ArcgisError } from '../core/errors/arcgis-error';

/** Says why an item cannot be deleted now, or null; registered by the module that owns what depends on the item. */
export type DeleteGuard = (itemId: string) => Promise<ArcgisError | null>;

/**
 * What other modules forbid about deleting an item (a source service its views read), asked before a delete does
 * anything: content cannot import the modules above it, so they register here.
 */
@Injectable()
export class ItemDeleteGuards {
  private readonly guards: DeleteGuard[] = [];

  register(guard: DeleteGuard): void {
    this.guards.push(guard);
  }

  /** Throws the first refusal. */
  async check(itemId: string): Promise<void> {
    for (const guard of this.guards) {
      const refusal = await guard(itemId);
      if (refusal) throw refusal;
    }
  }
}

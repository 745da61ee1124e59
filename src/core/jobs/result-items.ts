import { EntityManager } from 'typeorm';

/**
 * The writes a job makes to its result item, owned by the module that owns the items table (content) and bound by
 * it, so core updates an item without knowing the table. Both run inside the job row's transaction: an item and the
 * job meant to finish it are created together, and a final state moves the two together.
 */
export interface ResultItems {
  settle(m: EntityManager, itemId: string, outcome: SettledItem): Promise<void>;
  /** Which of these item ids still have a row (the storage sweep removes the files of the others). */
  existing(ids: string[]): Promise<Set<string>>;
}

export interface SettledItem {
  status: 'completed' | 'failed';
  message: string;
  file?: { size: number; filePath: string; name: string; contentType: string };
}

export const RESULT_ITEMS = Symbol('RESULT_ITEMS');

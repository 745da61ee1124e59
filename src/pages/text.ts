import { ContentService } from '../content/content.service';
import { GroupsService } from '../groups/groups.service';

/** An item and a group as the pages get them from the services the REST operations use. */
export type Item = Awaited<ReturnType<ContentService['item']>>;
export type Group = Awaited<ReturnType<GroupsService['info']>>;

export function when(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}

/** Sizes as people read them; -1 is ArcGIS's "not a file" (services). */
export function bytes(n: number): string {
  if (n < 0) return '';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`;
}

import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { IntParam } from './params.decorator';

/**
 * `start` (1-based) and `num` of a listing or search, with ArcGIS's defaults and at most `maxNum` a page: ArcGIS's
 * 100 for searches and listings (PageDto), 1,000 where a route lists more (an item's resources).
 */
export function pageDto(maxNum: number) {
  class Page {
    @IsOptional()
    @IntParam()
    @IsInt({ message: "'start' must be a whole number." })
    @Min(1, { message: "'start' must be 1 or more." })
    @Max(1_000_000_000, { message: "'start' must be at most 1000000000." })
    start = 1;
    @IsOptional()
    @IntParam()
    @IsInt({ message: "'num' must be a whole number." })
    @Min(0, { message: "'num' must be 0 or more." })
    @Max(maxNum, { message: `'num' must be at most ${maxNum}.` })
    num = 10;
  }
  return Page;
}

export class PageDto extends pageDto(100) {}

/** ArcGIS's nextStart: the next page's start, or -1 after the last page. */
export function nextStart(page: { start: number; num: number }, total: number): number {
  const next = page.start + page.num;
  return page.num > 0 && next <= total ? next : -1;
}

import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { BoolParam, CsvList } from '../core/http/params.decorator';

const BOOL = (name: string) => ({ message: `'${name}' must be true or false.` });

export class UnshareDto {
  @CsvList()
  @IsString({ each: true, message: "'groups' is required: a comma-separated list of group ids." })
  groups: string[];
}

export class UnshareItemsDto extends UnshareDto {
  @CsvList()
  @IsString({ each: true, message: "'items' is required: a comma-separated list of item ids." })
  items: string[];
}

export class ShareDto {
  @IsOptional() @CsvList() @IsString({ each: true }) groups?: string[];
  @IsOptional() @BoolParam() @IsBoolean(BOOL('everyone')) everyone?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('org')) org?: boolean;
  /** Undocumented synonym of `org` that the client's setItemAccess sends for public access (`account=true&everyone=true`). */
  @IsOptional() @BoolParam() @IsBoolean(BOOL('account')) account?: boolean;
  @IsOptional() @BoolParam() @IsBoolean(BOOL('confirmItemControl')) confirmItemControl?: boolean;
}

export class ShareItemsDto extends ShareDto {
  @CsvList()
  @IsString({ each: true, message: "'items' is required: a comma-separated list of item ids." })
  items: string[];
}

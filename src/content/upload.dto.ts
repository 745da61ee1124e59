import { IsInt, Max, Min } from 'class-validator';
import { IntParam } from '../core/http/params.decorator';

const PART_NUM = { message: "'partNum' must be a whole number from 1 to 10000." };

export class AddPartDto {
  @IntParam() @IsInt(PART_NUM) @Min(1, PART_NUM) @Max(10000, PART_NUM) partNum: number;
}

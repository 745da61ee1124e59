import { Init1732240000000 } from './1732240000000-Init';

/** Listed explicitly so the CLI, the tests and the build all load the same classes, in order. */
export const migrations = [Init1732240000000];

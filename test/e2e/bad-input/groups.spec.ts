/** Bad input on the group routes. */
import { GROUP_CASES, GROUP_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('groups', GROUP_ROUTES, GROUP_CASES);

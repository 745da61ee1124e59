/** Bad input on the sharing routes. */
import { SHARING_CASES, SHARING_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('sharing', SHARING_ROUTES, SHARING_CASES);

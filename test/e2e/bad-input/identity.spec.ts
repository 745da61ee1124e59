/** Bad input on the identity routes: tokens, users, roles. */
import { IDENTITY_CASES, IDENTITY_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('identity', IDENTITY_ROUTES, IDENTITY_CASES);

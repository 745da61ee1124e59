/** Bad input on the organization webhook routes. */
import { WEBHOOK_CASES, WEBHOOK_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('webhooks', WEBHOOK_ROUTES, WEBHOOK_CASES);

/** Bad input on the notification routes. */
import { NOTIFICATION_CASES, NOTIFICATION_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('notifications', NOTIFICATION_ROUTES, NOTIFICATION_CASES);

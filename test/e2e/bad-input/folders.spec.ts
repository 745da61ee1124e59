/** Bad input on the folder, move, reassign and multipart upload routes. */
import { FOLDER_CASES, FOLDER_ROUTES } from './tables';
import { moduleSuite } from './support';

moduleSuite('folders, move, reassign, multipart upload', FOLDER_ROUTES, FOLDER_CASES);

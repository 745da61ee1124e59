/** Entry point of a geometry thread (loaded by Piscina, never imported by the API's own code). */
import { convertEdits } from './convert';

export default convertEdits;

import { Caller, can, Privilege } from '../core/auth/caller';
import { Errors } from '../core/errors/arcgis-error';

/**
 * Who may create a hosted feature service in whose content: createService and publish ask it on the request, and
 * the publish job asks it again when it runs (a role changed meanwhile).
 */
export function assertMayCreateService(caller: Caller, ownerId: string): void {
  if (ownerId !== caller.userId) throw Errors.forbidden('Services can only be created in your own content.');
  if (!can(caller, Privilege.PublishFeatures)) throw Errors.forbidden('Your role may not create hosted feature services.');
}

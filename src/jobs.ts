import { ExportJob } from './export/export.job';
import { PublishJob } from './features/publish/publish.job';

/**
 * Every job kind. Listed here, beside the composition roots, so core's job module takes it as a parameter; a new
 * kind is its contract file, one line here and its handler among the worker's providers.
 */
export const jobKinds = [ExportJob, PublishJob];

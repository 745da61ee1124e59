/**
 * Publishing an uploaded file as hosted layers: inspectSource (what the file holds, as LayerDefinitions for
 * LayersRepository.addLayers) and loadLayer (the features into each created table). A library for the publish
 * job; routes, queue and metadata live elsewhere.
 */
export { PublishAbortedError, PublishError } from './errors';
export { inspectSource } from './inspect';
export type { CsvOptions, InspectOptions, SourceLayer } from './inspect';
export { loadLayer } from './load';
export type { LoadOptions, LoadResult, LoadTarget } from './load';
export { PUBLISH_FILE_TYPES } from './file-types';
export type { PublishFileType } from './file-types';

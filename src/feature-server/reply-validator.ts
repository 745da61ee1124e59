import { createHash } from 'node:crypto';
import { codeVersion } from '../core/code-version';

/**
 * The strong validator (ETag) of a layer's query replies: it changes with the code that writes them, the service's and
 * layer's definitions (their stamp, known-layers.ts) and the layer's data version (data-version.ts), whose trigger
 * counts every committed edit in the edit's own transaction. The URL, which caches key on, holds the rest.
 */
export function replyEtag(stamp: string, version: string): string {
  const hash = createHash('sha1').update(codeVersion()).update('\0').update(stamp).update('\0').update(version);
  return `"${hash.digest('base64url')}"`;
}

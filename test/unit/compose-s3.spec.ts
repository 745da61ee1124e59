import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/env';

/**
 * docker/compose.yml's s3 profile, read as text (no Docker engine in the tests): an API and workers with item files
 * in the MinIO bucket and no volume shared between them.
 */
const compose = readFileSync(path.resolve(__dirname, '../../docker/compose.yml'), 'utf8');

/** The lines of a top-level entry (`x-...:`) or a service (`  name:`), up to the next one at the same indent. */
function section(header: string, indent: string): string {
  const start = compose.indexOf(`\n${indent}${header}:`);
  expect(start).toBeGreaterThan(0);
  const rest = compose.slice(start + 1);
  const end = rest.slice(1).search(new RegExp(`\\n${indent}[A-Za-z#]`));
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** `KEY: value` lines, with compose's `${X:-default}` resolved as if nothing were set. */
function env(text: string): Record<string, string> {
  return Object.fromEntries(
    [...text.matchAll(/^ {2,}([A-Z][A-Z0-9_]*): (.*?)(\s+#.*)?$/gm)].map((m) => [m[1], m[2].replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1')]),
  );
}

describe('docker/compose.yml s3 profile', () => {
  const s3Env = env(section('x-s3-env', ''));
  const appEnv = env(section('x-app-env', ''));

  it('runs api-s3, worker-s3 and storage-migrate in profile s3 with the bucket settings over app-env', () => {
    for (const name of ['minio', 'minio-init', 'api-s3', 'worker-s3', 'storage-migrate']) {
      expect(section(name, '  ')).toMatch(/\n {4}profiles: \[s3\]\n/);
    }
    for (const name of ['api-s3', 'worker-s3', 'storage-migrate']) {
      // YAML merges a list with earlier maps winning: s3-env must come first.
      expect(section(name, '  ')).toMatch(/\n {6}<<: \[\*s3-env, \*app-env\]/);
    }
  });

  it('shares no volume between the API and the workers', () => {
    expect(section('api-s3', '  ')).not.toMatch(/\n {4}volumes:/);
    expect(section('worker-s3', '  ')).not.toMatch(/\n {4}volumes:/);
    // The migration reads the old data volume, read-only.
    expect(section('storage-migrate', '  ')).toMatch(/- data:\/data:ro/);
  });

  it('resolves to a valid configuration on the MinIO bucket, path-style, with its credentials', () => {
    const config = loadConfig({ ...appEnv, ...s3Env });
    expect(config.storage.s3).toMatchObject({
      bucket: 'arcgis',
      prefix: 'data/',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'arcgis', secretAccessKey: 'arcgis-minio-secret' },
    });
    expect(env(section('minio', '  '))).toMatchObject({ MINIO_ROOT_USER: 'arcgis', MINIO_ROOT_PASSWORD: 'arcgis-minio-secret' });
    expect(section('minio-init', '  ')).toContain('"store/arcgis"');
  });
});

/**
 * Three tiers and an s3 rerun. 'unit' is the pure specs (beside their source or in test/unit): no database, no Redis,
 * so it has no globalSetup. 'integration' (test/e2e, test/security) and 'compat' (test/compat: GDAL, QGIS, Chromium,
 * the ArcGIS SDK, arcgis-rest-js) talk to the real Postgres and Redis; globalSetup creates a fresh database per run
 * (one for all projects: the same module path runs once). The 's3' project runs the suites that store, read and
 * delete item files again on an s3rver the tests start on loopback (test/support/s3.ts).
 */
const common = {
  rootDir: '.',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: {
    // @esri/arcgis-rest-feature-service requires pbf (for f=pbf-as-*), whose v4 is ESM-only; its UMD build is the same code.
    '^pbf$': '<rootDir>/test/support/pbf-cjs.js',
    // Node 24's fetch (undici 7) encodes only its own FormData: arcgis-rest-js's Node ponyfill (formdata-node) would go
    // out as the text "[object FormData]", so its uploads take the global FormData, as its browser build does.
    '^@esri/arcgis-rest-form-data$': '<rootDir>/node_modules/@esri/arcgis-rest-form-data/browser-ponyfill.js',
  },
};
const withDatabase = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
// Specs under test/unit that need a real connection run with the integration tier.
const unitNeedingDatabase = ['<rootDir>/test/unit/export-writer/copy-rows.spec.ts'];

module.exports = {
  testTimeout: 30000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...unitNeedingDatabase],
    },
    {
      ...withDatabase,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/e2e/**/*.spec.ts', '<rootDir>/test/security/**/*.spec.ts', ...unitNeedingDatabase],
    },
    { ...withDatabase, displayName: 'compat', testMatch: ['<rootDir>/test/compat/**/*.spec.ts'] },
    {
      ...withDatabase,
      displayName: 's3',
      setupFiles: ['<rootDir>/test/support/on-s3.js'],
      testMatch: [
        '<rootDir>/test/e2e/portal.spec.ts',
        '<rootDir>/test/e2e/publish.spec.ts',
        '<rootDir>/test/compat/export.spec.ts',
        '<rootDir>/test/e2e/storage*.spec.ts',
        '<rootDir>/test/security/content-types.spec.ts',
        '<rootDir>/test/compat/portal-items.spec.ts',
        // User thumbnails go through the file store too.
        '<rootDir>/test/compat/portal-users.spec.ts',
        '<rootDir>/test/compat/portal-folders.spec.ts',
        // Feature attachments live beside the service's item files.
        '<rootDir>/test/e2e/attachments.spec.ts',
      ],
    },
  ],
};

/**
 * Every suite talks to the real Postgres and Redis; globalSetup creates a fresh database per run (one for both
 * projects: the same module path runs once). Item storage: the 'local' project runs everything on DATA_DIR; the 's3'
 * project runs the suites that store, read and delete item files (content, publish, export, storage) again on an
 * s3rver the tests start on loopback (test/support/s3.ts).
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
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'local', testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 's3',
      setupFiles: ['<rootDir>/test/support/on-s3.js'],
      testMatch: [
        '<rootDir>/test/e2e/portal.spec.ts',
        '<rootDir>/test/e2e/publish.spec.ts',
        '<rootDir>/test/compat/export.spec.ts',
        '<rootDir>/test/e2e/storage*.spec.ts',
        '<rootDir>/test/security/content-types.spec.ts',
      ],
    },
  ],
};

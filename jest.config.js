/** Every suite talks to the real Postgres and Redis; globalSetup creates a fresh database per run. */
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // @esri/arcgis-rest-feature-service requires pbf (for f=pbf-as-*), whose v4 is ESM-only; its UMD build is the same code.
  moduleNameMapper: { '^pbf$': '<rootDir>/test/support/pbf-cjs.js' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
};

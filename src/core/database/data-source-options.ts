import { DataSourceOptions } from 'typeorm';

/**
 * The entity classes and migrations, in order. Core knows neither: the composition roots (app and worker modules,
 * ormconfig.ts, the tests) pass the lists from src/entities.ts and src/migrations, so core imports no feature.
 */
export interface DatabaseSchema {
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
}

/** One definition for the app, the migration CLI (ormconfig.ts) and the tests. Schema changes go through migrations only. */
export function dataSourceOptions(databaseUrl: string, { entities, migrations }: DatabaseSchema): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    extra: { max: 10, connectionTimeoutMillis: 5000 },
  };
}

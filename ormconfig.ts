import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/core/config/env';
import { dataSourceOptions } from './src/core/database/data-source-options';
import { entities } from './src/entities';
import { migrations } from './src/migrations';

/**
 * The TypeORM CLI's data source. tsconfig.build.json compiles it to dist/ormconfig.js, which `npm run migrate` and
 * `migrate:revert` load, so a production install needs neither ts-node nor the sources; `migrate:dev` loads this file.
 */
export default new DataSource(dataSourceOptions(loadConfig().databaseUrl, { entities, migrations }));

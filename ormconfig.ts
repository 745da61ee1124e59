import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/core/config/env';
import { dataSourceOptions } from './src/core/database/data-source-options';

/** Used by `npm run migrate` (TypeORM CLI). */
export default new DataSource(dataSourceOptions(loadConfig().databaseUrl));

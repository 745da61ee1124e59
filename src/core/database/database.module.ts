import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG } from '../config/config.module';
import { AppConfig } from '../config/env';
import { DatabaseSchema, dataSourceOptions } from './data-source-options';

@Module({})
export class DatabaseModule {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.databaseUrl, schema), retryAttempts: 3, retryDelay: 1000 }),
        }),
      ],
    };
  }
}

import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './env';

export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** The config is loaded once by the entry point, so a bad variable stops the process before Nest starts. */
  static forRoot(config: AppConfig = loadConfig()) {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}

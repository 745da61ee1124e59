import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Piscina } from 'piscina';
import { APP_CONFIG } from '../../core/config/config.module';
import { AppConfig } from '../../core/config/env';
import { Errors } from '../../core/errors/arcgis-error';
import { GeometryType } from '../../layers/layer-schema';
import { EditsTask, EditsTaskResult, ParsedFeature } from './types';

/**
 * Parses and converts edit geometry on worker threads (Piscina, the maintained pool for node:worker_threads), so the
 * event loop only hands over the request's JSON text and gets GeoJSON text back: a request at the limits costs the
 * loop a copy of its strings, not seconds of parsing and ring assembly. Every request goes through the threads, small
 * ones too (a fraction of a millisecond more), so there is one code path and the limits hold everywhere. A task that runs past
 * GEOMETRY_TIMEOUT_MS (queueing included) is aborted, which terminates its thread, and the request gets a 400.
 */
@Injectable()
export class GeometryPool implements OnModuleDestroy {
  private readonly pool: Piscina<EditsTask, EditsTaskResult>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const filename = path.join(__dirname, `geometry.worker${path.extname(__filename)}`);
    this.pool = new Piscina({
      filename,
      // Run from TypeScript sources (tests, ts-node), the thread compiles them the same way.
      execArgv: filename.endsWith('.ts') ? ['-r', 'ts-node/register/transpile-only'] : [],
      // Started on first use and ended when idle: most API processes edit rarely.
      minThreads: 0,
      // One core is always left to the event loop (and Postgres beside it): with every core, two heavy edit requests
      // took both cores of a 2-core host and every other request waited behind them. Further requests queue here.
      maxThreads: Math.max(1, availableParallelism() - 1),
      idleTimeout: 30_000,
    });
  }

  /** The feature lists of an edit request, parsed, with each geometry converted or its problem stated. */
  async parseEdits(lists: EditsTask['lists'], geometryType: GeometryType | null, maxFeatures: number): Promise<ParsedFeature[][]> {
    const { maxVertices, maxParts, maxRequestVertices, timeoutMs } = this.config.geometry;
    const signal = AbortSignal.timeout(timeoutMs);
    let result: EditsTaskResult;
    try {
      result = await this.pool.run({ lists, geometryType, maxFeatures, limits: { maxVertices, maxParts, maxRequestVertices } }, { signal });
    } catch (e) {
      if (signal.aborted)
        throw Errors.badRequest('Unable to complete operation.', [
          `Converting the geometries took longer than ${timeoutMs} ms (the server's limit).`,
        ]);
      throw e;
    }
    if (!result.ok) throw Errors.badRequest(result.message, result.details);
    return result.lists;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}

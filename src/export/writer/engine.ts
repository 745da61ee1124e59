import type * as gdal from 'gdal-async';
import { ExportPlan } from './layout';
import { Progress } from './progress';
import { LayerMeasure } from './sql';
import { ResolvedSrs } from './srs';
import { ExportJob } from './types';

/** What an export's engine is handed before anything is written: the job, its plan and its connections. */
export interface RunContext {
  job: ExportJob;
  plan: ExportPlan;
  /** The job's targetSR, resolved (layerTargetSrs gives each layer's). */
  target: ResolvedSrs | null;
  /** application_name of every session of the export, which an abort ends. */
  appName: string;
  /** The job's GDAL connection (exportConnection). */
  conn: string;
  /** The private folder the plan's datasets are written in. */
  stage: string;
  zipLevel: number;
  /** GDAL's PostGIS source, opened on first use and closed by the run. */
  source(): Promise<gdal.Dataset>;
}

/** ...and once the layers are measured and checked against the limits. */
export interface ExportRun extends RunContext {
  measures: LayerMeasure[];
  progress: Progress;
}

/** One way of writing a format's layers: write-export.ts picks one per job and packages what it wrote. */
export interface ExportEngine {
  /** Row counts (or estimates) and what the limits check, before anything is written. */
  measure(run: RunContext): Promise<LayerMeasure[]>;
  /** Writes every layer into run.stage, at the plan's datasets. */
  write(run: ExportRun): Promise<void>;
}

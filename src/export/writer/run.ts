/** One export's run: its plan, its sessions' name, its private folder and GDAL source, and their clean-up. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type * as gdal from 'gdal-async';
import { RunContext } from './engine';
import { attachmentsAsFiles } from './attachments';
import { planExport } from './layout';
import { exportConnection, openPg, resolveTarget, terminateSessions } from './source';
import { ExportJob } from './types';
import { DEFAULT_ZIP_LEVEL } from './zip/zip';

export interface OpenRun extends RunContext {
  /** Closes GDAL's source now (it is opened again if asked for). */
  closeSource(): void;
  /** Runs `cleanUp` when the run closes, before its folder is removed. */
  defer(cleanUp: () => Promise<void>): void;
  /** Ends the run whatever happened: the abort hook, the source, the deferred clean-ups, the folder. */
  close(): Promise<void>;
}

/** Starts a run: the target SR resolved, a folder of its own in job.workDir, and an abort that ends its sessions. */
export async function openRun(job: ExportJob): Promise<OpenRun> {
  const plan = planExport(
    job.format,
    job.layers.map((l) => l.name),
    job.baseName,
    attachmentsAsFiles(job),
  );
  const target = await resolveTarget(job.target);
  const appName = job.sessionName ? `${job.sessionName}-${randomUUID().slice(0, 8)}` : `export-${randomUUID()}`;
  const conn = exportConnection(job.pg, appName);
  const stage = await mkdtemp(join(job.workDir, '.export-'));
  const onAbort = () => void terminateSessions(job.pg, appName);
  job.signal?.addEventListener('abort', onAbort, { once: true });
  const cleanUps: (() => Promise<void>)[] = [];
  let opening: Promise<gdal.Dataset> | undefined;
  let opened: gdal.Dataset | undefined;
  const closeSource = () => {
    const pending = opening;
    opening = undefined;
    if (opened) opened.close();
    else
      pending?.then(
        (ds) => ds.close(),
        () => undefined,
      );
    opened = undefined;
  };
  return {
    job,
    plan,
    target,
    appName,
    conn,
    stage,
    zipLevel: job.zipLevel ?? DEFAULT_ZIP_LEVEL,
    source: () => (opening ??= openPg(conn).then((ds) => (opened = ds))),
    closeSource,
    defer: (cleanUp) => void cleanUps.push(cleanUp),
    async close() {
      job.signal?.removeEventListener('abort', onAbort);
      closeSource();
      for (const cleanUp of cleanUps.reverse()) await cleanUp().catch(() => undefined);
      await rm(stage, { recursive: true, force: true });
    },
  };
}

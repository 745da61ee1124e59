import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';

/** Resident set size of a process, in kB (`VmRSS`), or its peak since the last reset (`VmHWM`). */
export function rssKb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system) a process has used so far, in ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after "pid (comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * CPU time so far of this process (the server and its client alike) and of the database's backends, in ms. Time on a
 * busy machine stretches with whatever else runs; CPU time spent on a page hardly does, so benches report both.
 */
export async function serverCpuMs(db: DataSource): Promise<{ node: number; pg: number }> {
  const { user, system } = process.cpuUsage();
  const pids: { pid: number }[] = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  let pg = 0;
  for (const { pid } of pids) {
    try {
      pg += cpuMs(pid);
    } catch {
      // a backend that ended meanwhile, or a database on another host: counted as nothing
    }
  }
  return { node: (user + system) / 1000, pg };
}

/**
 * CPU time spent by each process of a load run (Linux /proc): the API, the workers, PostgreSQL's processes together,
 * the benchmark's own clients, and what the machine left idle, so a report can say where the cores went.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function processMs(pid: number | string): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0; // the process has exited
  }
}

/** PostgreSQL's server processes, with their children's time: backends that exited during the run still count. */
function postgresMs(): number {
  let ms = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() !== 'postgres') continue;
      const f = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ');
      ms += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
    } catch {
      // exited while read
    }
  }
  return ms;
}

/** Idle time summed over all cores. */
function idleMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (cpu[3] + cpu[4]) * TICK_MS;
}

export type CpuSnapshot = Record<string, number>;

export function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const self = process.cpuUsage();
  const out: CpuSnapshot = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = pid ? processMs(pid) : 0;
  out.postgres = postgresMs();
  out.clients = (self.user + self.system) / 1000;
  out.idle = idleMs();
  return out;
}

/** Adds b - a into sum. */
export function addCpu(sum: CpuSnapshot, a: CpuSnapshot, b: CpuSnapshot): void {
  for (const k of Object.keys(b)) sum[k] = (sum[k] ?? 0) + b[k] - (a[k] ?? 0);
}

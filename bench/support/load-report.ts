/** Figures and Markdown tables of the load benchmark. */
import { readFileSync } from 'node:fs';
import { Sample } from './load-traffic';

export const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
const ms = (x: number) => (Number.isNaN(x) ? '–' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);

export interface Dist {
  n: number;
  p50: number;
  p99: number;
}

export function dist(samples: Sample[]): Dist {
  const t = samples.map((s) => s.ms).sort((a, b) => a - b);
  return { n: t.length, p50: pct(t, 50), p99: pct(t, 99) };
}

const byOp = (samples: Sample[]) => {
  const m = new Map<string, Sample[]>();
  for (const s of samples) m.set(s.op, [...(m.get(s.op) ?? []), s]);
  return m;
};

/** Outcomes other than ok, most frequent first: `error 400 ×12, http 413 ×3`. */
export function outcomes(samples: Sample[]): string {
  const m = new Map<string, number>();
  for (const s of samples) m.set(s.outcome, (m.get(s.outcome) ?? 0) + 1);
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .map(([o, n]) => `${o} ×${n}`)
    .join(', ');
}

/** Legitimate operations, clean run against the run with hostile traffic; the last row pools every legitimate request. */
export function legitTable(clean: Sample[], hostile: Sample[]): { lines: string[]; all: { clean: Dist; hostile: Dist } } {
  const c = byOp(clean.filter((s) => !s.hostile));
  const h = byOp(hostile.filter((s) => !s.hostile));
  const lines = [
    '| Operation | clean n | clean p50 | clean p99 | with hostile n | p50 | p99 | p99 ratio |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const row = (name: string, a: Dist, b: Dist) =>
    `| ${name} | ${a.n} | ${ms(a.p50)} | ${ms(a.p99)} | ${b.n} | ${ms(b.p50)} | ${ms(b.p99)} | ${(b.p99 / a.p99).toFixed(2)} |`;
  for (const op of new Set([...c.keys(), ...h.keys()])) lines.push(row(op, dist(c.get(op) ?? []), dist(h.get(op) ?? [])));
  const all = { clean: dist(clean.filter((s) => !s.hostile)), hostile: dist(hostile.filter((s) => !s.hostile)) };
  lines.push(row('**all legitimate**', all.clean, all.hostile));
  return { lines, all };
}

export function hostileTable(samples: Sample[]): string[] {
  const lines = ['| Hostile request | n | p50 | p99 | answers |', '|---|---|---|---|---|'];
  for (const [op, s] of byOp(samples.filter((x) => x.hostile))) {
    const d = dist(s);
    lines.push(`| ${op} | ${d.n} | ${ms(d.p50)} | ${ms(d.p99)} | ${outcomes(s)} |`);
  }
  return lines;
}

/** Error-level lines the process logged, grouped by message, for telling which requests hurt the service. */
export function loggedErrors(log: string): string[] {
  const m = new Map<string, number>();
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let key: string;
    try {
      const j = JSON.parse(line);
      if (j.level < 50) continue;
      key = `${j.msg ?? ''}${j.err?.message ? `: ${j.err.message}` : ''}${j.path ? ` (${j.path.slice(0, 80)})` : ''}`;
    } catch {
      key = line; // not pino: a crash's stack or Node's own output
    }
    key = key.slice(0, 160);
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, n]) => `${n} × ${k}`);
}

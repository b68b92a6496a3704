// Benchmark output: one JSON line per result (machine-readable), a short table, and results files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RESULTS_DIR = path.resolve(import.meta.dirname, '../results');

export function machine(): Record<string, unknown> {
  return {
    date: new Date().toISOString(),
    node: process.version,
    nproc: os.availableParallelism(),
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    cpu: os.cpus()[0]?.model ?? 'unknown',
  };
}

export function jsonLine(obj: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cells = rows.map((r) => columns.map((c) => fmt(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(widths[i])).join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function fmt(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  return v === undefined || v === null ? '-' : String(v);
}

export function writeResults(name: string, data: unknown): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
  return file;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

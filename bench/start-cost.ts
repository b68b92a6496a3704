// What a start costs in CPU (issue 36's suite time; every start and shard restart in production):
// a shard thread's modules imported in a fresh worker (against a bare worker), an in-process service
// started with one shard thread and left 1.2 s to settle, and the entry as its own process stopping at
// a configuration error (its whole import graph). CPU from /proc/self/stat (threads and reaped
// children), the median of `--runs`. `npm run build && npx tsx bench/start-cost.ts [--runs 9]`
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '#built/main/base/config.js';
import { createLogger } from '#built/main/base/log.js';
import { startService } from '#built/main/service.js';
import { cpuMs } from '../test/helpers/leftovers.js';
import { ENTRY, ROOT, testEnv } from '../test/helpers/service-process.js';
import { jsonLine, machine, table } from './lib/report.js';

const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(what: () => Promise<void> | void): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const before = cpuMs();
    await what();
    out.push(cpuMs() - before);
  }
  return median(out);
}

/** A worker that imports `spec` and exits 0.8 s later (V8's background compilation included). */
const workerImport = (spec: string) => () => new Promise<void>((resolve) => {
  const w = new Worker(`import(${JSON.stringify(spec)}).then(() => setTimeout(() => process.exit(0), 800));`, { eval: true });
  w.once('exit', () => resolve());
});

const sink = new Writable({ write(_c, _e, cb) { cb(); } });
async function inProcessService(): Promise<void> {
  const config = loadConfig({ ...testEnv(), LOG_LEVEL: 'info', AUTH_KEY: 'k' });
  const svc = await startService(config, { logger: createLogger(config, sink) });
  await new Promise((r) => setTimeout(r, 1200));
  await svc.close();
}

function configErrorProcess(): void {
  spawnSync(process.execPath, [ENTRY], { env: { PATH: process.env.PATH ?? '', INSECURE: 'true', INGEST_PORT: 'abc' }, stdio: 'ignore' });
}

const shardModule = path.join(ROOT, 'dist/workers/shard/shard.js');
const rows = [
  { what: 'bare worker thread', cpuMs: await measure(workerImport('node:os')) },
  { what: "a shard's modules in a worker", cpuMs: await measure(workerImport(shardModule)) },
  { what: 'in-process service, 1 shard thread, 1.2 s settled', cpuMs: await measure(inProcessService) },
  { what: 'entry process stopping at a configuration error', cpuMs: await measure(configErrorProcess) },
];
jsonLine({ bench: 'start-cost', runs: RUNS, machine: machine(), rows });
console.log(table(rows, ['what', 'cpuMs']));

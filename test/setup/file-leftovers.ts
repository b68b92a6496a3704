// After each test file of the shared project (vitest.config.ts: files that run one after another
// in one worker process, `isolate: false`), what the file left behind is ended here, as the end of
// its own process ends it for an isolated file: clients the helpers opened, in-process services,
// fake timers, and child processes (service nodes, redis-server, Sentinels, nginx, Chromium) with
// everything they started. A leftover is named on stderr: it is the file's leak to fix, and until
// then it must not load the machine for the files after it.
import fs from 'node:fs';
import { afterAll, beforeAll, vi } from 'vitest';
import { closeAll } from '../helpers/clients.js';
import { closeLeftoverServices } from '../helpers/service.js';

/** The pids of a process's children, from every thread's `children` list (Linux /proc). */
function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const task of tasks) {
    try {
      out.push(...fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch { /* the thread ended */ }
  }
  return out;
}

function descendants(pid: number): number[] {
  const direct = children(pid);
  return [...direct, ...direct.flatMap(descendants)];
}

/** Every descendant of this worker, killed (children last, so that none is re-parented away first). */
function killDescendants(): string[] {
  const pids = descendants(process.pid);
  const named = pids.map((pid) => {
    try {
      return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ')}`;
    } catch {
      return String(pid);
    }
  });
  for (const pid of pids.reverse()) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ }
  }
  return named;
}

/**
 * This worker's CPU time so far, its own threads and its reaped children (ms, from /proc/self/stat):
 * with TEST_CPU_REPORT=<file> each file's share is appended there as a JSON line (what the suite's
 * time is spent on: docs/benchmarks.md, "The test suite's time").
 */
function cpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // utime, stime, cutime, cstime: fields 14–17 of stat(5), 12–15 after the command's ") ".
  return [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0) * 10;
}
let cpuAtStart = 0;
beforeAll(() => { cpuAtStart = cpuMs(); });

afterAll(async ({}, suite) => { // eslint-disable-line no-empty-pattern -- vitest reads the fixtures' pattern
  vi.useRealTimers();
  closeAll();
  const services = await closeLeftoverServices();
  const procs = killDescendants();
  const report = process.env.TEST_CPU_REPORT;
  if (report && 'filepath' in suite) fs.appendFileSync(report, JSON.stringify({ file: String(suite.filepath), cpuMs: cpuMs() - cpuAtStart }) + '\n');
  if (services > 0 || procs.length > 0) {
    const file = 'filepath' in suite ? String(suite.filepath) : 'a test file';
    process.stderr.write(`file-leftovers: ${file} left ${services} service(s) open and ${procs.length} process(es) running: ${procs.join('; ')}\n`);
  }
});

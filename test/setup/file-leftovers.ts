// After each test file of the shared project (vitest.config.ts: files that run one after another
// in one worker process, `isolate: false`), what the file left behind is ended here, as the end of
// its own process ends it for an isolated file: clients the helpers opened, in-process services,
// fake timers, and child processes (service nodes, redis-server, Sentinels, nginx, Chromium) with
// everything they started. A leftover is named on stderr: it is the file's leak to fix, and until
// then it must not load the machine for the files after it. With TEST_CPU_REPORT=<file> each file's
// CPU time (its worker's threads and reaped children), the worker's pid and its heap and RSS after
// the file are appended there as a JSON line (docs/benchmarks.md, "The test suite's time").
import fs from 'node:fs';
import { afterAll, beforeAll, vi } from 'vitest';
import { closeAll } from '../helpers/clients.js';
import { cpuSplitMs, killDescendants } from '../helpers/leftovers.js';
import { closeLeftoverServices } from '../helpers/service.js';

let cpuAtStart = { own: 0, children: 0 };
beforeAll(() => { cpuAtStart = cpuSplitMs(); });

afterAll(async ({}, suite) => { // eslint-disable-line no-empty-pattern -- vitest reads the fixtures' pattern
  vi.useRealTimers();
  closeAll();
  const services = await closeLeftoverServices();
  const procs = killDescendants();
  const report = process.env.TEST_CPU_REPORT;
  if (report && 'filepath' in suite) {
    const now = cpuSplitMs();
    const own = now.own - cpuAtStart.own;
    const children = now.children - cpuAtStart.children;
    const { heapUsed, rss } = process.memoryUsage();
    fs.appendFileSync(report, JSON.stringify({ file: String(suite.filepath), cpuMs: own + children, ownMs: own, childrenMs: children, pid: process.pid, heapMB: Math.round(heapUsed / 1e6), rssMB: Math.round(rss / 1e6) }) + '\n');
  }
  if (services > 0 || procs.length > 0) {
    const file = 'filepath' in suite ? String(suite.filepath) : 'a test file';
    process.stderr.write(`file-leftovers: ${file} left ${services} service(s) open and ${procs.length} process(es) running: ${procs.join('; ')}\n`);
  }
});

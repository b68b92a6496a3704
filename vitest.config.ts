import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/setup/sequencer.js';

const ROOT = import.meta.dirname;

// The scale-out tests run Debian's redis-server (and nginx): `.ci/run` installs them. Elsewhere,
// without them, those files are left out with a message, so that `npm test` works on a machine
// that has only Node; in CI (CI set) nothing is left out: a missing package fails the run.
const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const NEEDS_REDIS = ['ports/ports-redis', 'matches/input-log-redis', 'schedule/fixture-store-redis', 'output-delay/output-delay-store-redis', 'events/webhook-endpoint-store-redis', 'cluster/webhooks-cluster', 'cluster/delay-cluster', 'cluster/fixtures-cluster', 'matches/directory-redis', 'frames/frames-redis', 'matches/inbox-redis', 'cluster/cluster', 'cluster/cluster-takeover', 'cluster/cluster-nginx', 'cluster/rehearsal', 'cluster/sentinel-failover', 'events/event-outbox', 'cluster/events-cluster', 'events/record-store-redis', 'cluster/records-cluster', 'events/outbox-catchup-redis', 'cluster/events-paused-owner', 'cluster/owner-delivery-order', 'cluster/redis-lookup-retry', 'cluster/sentinel-session-lookup', 'cluster/frozen-owner-inputs', 'cluster/takeover-before-snapshot', 'cluster/brackets-cluster', 'brackets/bracket-store-redis'].map((f) => `test/main/${f}.test.ts`);
const leftOut = process.env.CI ? [] : [
  ...(runs('redis-server', ['--version']) ? [] : NEEDS_REDIS),
  ...(runs('/usr/sbin/nginx', ['-v']) ? [] : ['test/main/cluster/cluster-nginx.test.ts']),
  ...(runs('redis-sentinel', ['--version']) ? [] : ['test/main/cluster/sentinel-failover.test.ts', 'test/main/cluster/sentinel-session-lookup.test.ts']),
];
if (leftOut.length > 0) {
  console.warn(`scale-out tests SKIPPED (${[...new Set(leftOut)].join(', ')}): redis-server, redis-sentinel or nginx not found. Install Debian's packages (apt-get update && apt-get install -y redis-server redis-sentinel nginx-light); .ci/run does this when it runs as root.`);
}

// Files that each get a process of their own (vitest's default, `isolate: true`); every other file
// runs in the shared project, one after another in a worker process that keeps the built service's
// modules loaded (`isolate: false`): no process start and no import of ~200 modules per file, and
// test/setup/file-leftovers.ts ends what a file left running. Isolated stay the files that time a
// process's own exit (shutdown-signal: SIGTERM within 1.5 s).
const ISOLATED = ['test/main/shutdown-signal.test.ts'];

// How many of the machine's cores other processes leave idle now (/proc/stat over 0.5 s; the build
// before vitest has ended). The files wait on outages, leases and heartbeats a good part of their
// time, so on a quiet 2-core machine 4 workers fill the cores (docs/benchmarks.md, "The test suite's
// time": 290 s against 518 s with 2); beside other work 4 oversubscribe it (with two CPU hogs, load
// 9–10: a venue's 400 clients in one worker starved past their heartbeat), so a busy machine gets 2,
// as `make -l` holds back its jobs.
function freeCpus(): number {
  const idle = () => {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: cpu[3] + cpu[4], total: cpu.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = idle();
    spawnSync('sleep', ['0.5']);
    const b = idle();
    return ((b.idle - a.idle) / Math.max(1, b.total - a.total)) * os.availableParallelism();
  } catch {
    return os.availableParallelism(); // not Linux: as if quiet
  }
}
const EXCLUDED = [...configDefaults.exclude, ...leftOut];

export default defineConfig({
  resolve: {
    // One source of truth for what is tested: the built service. Tests import `../src/....js` (so
    // tsc checks them against the sources), and get the same module from `dist/`, the code the
    // shard threads run (`dist/workers/shard/thread.js`) and `npm start` starts. `npm test` builds
    // first (pretest); `npx vitest run` alone is stopped by test/global-setup.ts when `dist/` is
    // older than `src/`.
    alias: [{ find: /^(?:\.\.\/)+src\/(.+)\.js$/, replacement: `${path.join(ROOT, 'dist')}/$1.js` }],
  },
  test: {
    exclude: EXCLUDED,
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for the service to do work, on machines that are loaded: 1 s (vitest's
    // default) is too short. A generous deadline costs nothing when the condition comes true.
    expect: { poll: { timeout: 15_000 } },
    // The built service is plain ESM that Node loads itself: externalized, it is not transformed
    // and served module by module to each test file's fresh worker (≈ 200 modules per file that
    // starts a service). Measured on 12 short files, interleaved, on a loaded machine: import
    // 99 s and 42 s summed over the files inlined, 30 s and 28 s externalized (docs/benchmarks.md).
    server: { deps: { external: [/\/dist\//] } },
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // 4 worker processes on a quiet machine, 2 on a busy one (TEST_WORKERS overrides; freeCpus above).
    maxWorkers: process.env.TEST_WORKERS ? Number(process.env.TEST_WORKERS) : freeCpus() >= 1 ? 4 : 2,
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...EXCLUDED, ...ISOLATED], isolate: false, sequence: { groupOrder: 0 }, setupFiles: ['test/setup/file-leftovers.ts'] },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, exclude: EXCLUDED, sequence: { groupOrder: 1 } },
      },
    ],
  },
});

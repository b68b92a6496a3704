import path from 'node:path';
import { defineConfig } from 'vitest/config';

const ROOT = import.meta.dirname;

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
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for the service to do work, on machines that are loaded: 1 s (vitest's
    // default) is too short. A generous deadline costs nothing when the condition comes true.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // The machine has 2 cores; services under test start worker threads of their own.
    maxWorkers: 2,
  },
});

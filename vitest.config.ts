import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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

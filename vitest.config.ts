import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The machine has 2 cores; services under test start worker threads of their own.
    maxWorkers: 2,
  },
});

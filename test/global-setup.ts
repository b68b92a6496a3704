// Runs once before any test file, and its returned function once after the last.
// - The tests import the built service (vitest.config.ts maps `../src/**/*.js` to `dist/**/*.js`),
//   so a `dist/` older than `src/` would test stale code. `npm test` builds first; `npx vitest run`
//   alone stops here instead of testing the wrong build.
// - Every temporary directory of the run (the services' DATA_DIR and STATE_DIR, Redis's and
//   Chromium's, what the spawned processes make) goes under one directory of the run, removed at
//   the end: TMPDIR is inherited by the worker processes and what they spawn, and os.tmpdir()
//   reads it at each call. (Without it each run left ~300 directories in /tmp.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { distStaleness } from './helpers/dist-check.js';

export default function setup(): () => void {
  const stale = distStaleness();
  if (stale.length > 0) {
    const shown = stale.slice(0, 5).map((s) => `  ${s}`).join('\n');
    throw new Error(`dist/ is older than src/ (or missing) — run \`npm run build\` (or \`npm test\`, which builds first):\n${shown}${stale.length > 5 ? `\n  … and ${stale.length - 5} more` : ''}`);
  }
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-run-'));
  process.env.TMPDIR = runDir;
  return () => fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
}

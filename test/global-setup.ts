// Runs once before any test file: the tests import the built service (vitest.config.ts maps
// `../src/**/*.js` to `dist/**/*.js`), so a `dist/` older than `src/` would test stale code.
// `npm test` builds first; `npx vitest run` alone stops here instead of testing the wrong build.
import { distStaleness } from './helpers/dist-check.js';

export default function setup(): void {
  const stale = distStaleness();
  if (stale.length > 0) {
    const shown = stale.slice(0, 5).map((s) => `  ${s}`).join('\n');
    throw new Error(`dist/ is older than src/ (or missing) — run \`npm run build\` (or \`npm test\`, which builds first):\n${shown}${stale.length > 5 ? `\n  … and ${stale.length - 5} more` : ''}`);
  }
}
